/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_Operations_Amazon_Bedrock_Runtime.html */
import type { RouteTarget } from '../../catalog.ts';
import { GatewayError } from '../../errors.ts';
import type { ChatRequest } from '../../ir.ts';
import { readAnthropicMessage } from '../anthropic/index.ts';
import { readFixedConfig } from '../fixed-config.ts';
import type { PassthroughCall, Upstream, UpstreamRequest } from '../types.ts';
import { readBedrockError } from './read-error.ts';
import { readBedrockPassthroughBody } from './read-passthrough-body.ts';
import { readBedrockConverseResponse } from './read-response.ts';
import { readBedrockConverseStream, readBedrockInvokeStream } from './read-stream.ts';
import { type BedrockConfig, bedrockModelUrl, signBedrockRequest } from './sign.ts';
import { isBedrockClaude, writeBedrockCountTokensInput, writeBedrockInvokeBody, writeBedrockPassthroughBody } from './write-invoke.ts';
import { writeBedrockConverseRequest } from './write-request.ts';

export type { BedrockConfig } from './sign.ts';
export { isBedrockClaude } from './write-invoke.ts';

type Action = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream' | 'count-tokens';

/**
 * AWS Bedrock Runtime. Claude models go through InvokeModel with the Anthropic-native body (every
 * Anthropic feature survives, and Claude-style clients get a byte-level passthrough); every
 * other model (gpt-oss, Llama, Nova, Mistral…) goes through Converse.
 */
export function createBedrockUpstream(name: string, config: BedrockConfig): Upstream {
  const keys = new Map<string, ArrayBuffer>();

  const request = async (modelId: string, action: Action, body: unknown): Promise<UpstreamRequest> => {
    const url = bedrockModelUrl(config, modelId, action);
    const text = JSON.stringify(body);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (action === 'invoke') headers.accept = 'application/json';
    if (action === 'invoke-with-response-stream') headers['x-amzn-bedrock-accept'] = 'application/json';
    for (const [header, value] of readFixedConfig(config).headers) headers[header] = value;
    return { url, headers: await signBedrockRequest(config, name, { url, headers, body: text }, { cache: keys }), body: text };
  };

  const writePassthrough = (call: PassthroughCall): Promise<UpstreamRequest> => {
    const model = call.target.upstreamModel;
    const body = writeBedrockPassthroughBody(call.source.object, call.headers.get('anthropic-beta'), call.warn);
    if (call.action === 'messages') return request(model, call.stream ? 'invoke-with-response-stream' : 'invoke', body);
    if (call.action === 'count_tokens') return request(model, 'count-tokens', { input: writeBedrockCountTokensInput(body) });
    throw new GatewayError('internal', `Bedrock upstream cannot pass through "${call.action}"`);
  };

  return {
    kind: 'bedrock',
    writeRequest(req, _target, warn) {
      if (isBedrockClaude(req.model)) return request(req.model, req.stream ? 'invoke-with-response-stream' : 'invoke', writeBedrockInvokeBody(req, warn));
      return request(req.model, req.stream ? 'converse-stream' : 'converse', writeBedrockConverseRequest(req, warn));
    },
    readResponse: (body, req) => (isBedrockClaude(req.model) ? readAnthropicMessage(body, { origin: 'bedrock' }) : readBedrockConverseResponse(body, req.model)),
    readStream: (req) => (isBedrockClaude(req.model) ? readBedrockInvokeStream(name) : readBedrockConverseStream(name, req.model)),
    readError: (res) => readBedrockError(res),
    passthrough: {
      family: 'anthropic',
      accepts: (target: RouteTarget) => isBedrockClaude(target.upstreamModel),
      readsObject: true,
      writeRequest: writePassthrough,
      readBody: readBedrockPassthroughBody,
    },
    async countTokens(req, _target, send) {
      const res = await send(await request(req.model, 'count-tokens', { input: countInput(req) }));
      if (!res.ok) throw await readBedrockError(res);
      const body = (await res.json().catch(() => undefined)) as { inputTokens?: unknown } | undefined;
      if (typeof body?.inputTokens !== 'number') throw new GatewayError('upstream', `Upstream "${name}" sent a token count without inputTokens`);
      return body.inputTokens;
    },
  };
}

/** What CountTokens is asked to count: the exact InvokeModel body for Claude, the Converse fields otherwise. */
function countInput(req: ChatRequest): Record<string, unknown> {
  const ignore = () => {};
  if (isBedrockClaude(req.model)) return writeBedrockCountTokensInput(writeBedrockInvokeBody(req, ignore));
  const { messages, system, toolConfig } = writeBedrockConverseRequest(req, ignore);
  return { converse: { messages, ...(system ? { system } : {}), ...(toolConfig ? { toolConfig } : {}) } };
}
