/** @see https://docs.anthropic.com/en/api/overview */
import { GatewayError } from '../../errors.ts';
import { TemplateCache } from '../../http/template-cache.ts';
import type { Upstream } from '../types.ts';
import { readAnthropicError } from './read-error.ts';
import { readAnthropicMessage } from './read-response.ts';
import { type DeltaTemplate, readAnthropicStream } from './read-stream.ts';
import { writeAnthropicCountTokens } from './write-count-tokens.ts';
import { writeAnthropicPassthrough } from './write-passthrough.ts';
import { writeAnthropicRequest } from './write-request.ts';
import type { AnthropicConfig } from './wire-types.ts';

/** api.anthropic.com or any Anthropic-compatible base URL. */
export function createAnthropicUpstream(name: string, config: AnthropicConfig): Upstream {
  const templates = new TemplateCache<DeltaTemplate>();
  return {
    kind: 'anthropic',
    writeRequest: (req, _target, warn) => writeAnthropicRequest(req, config, warn),
    readResponse: (body) => readAnthropicMessage(body),
    readStream: (req) => readAnthropicStream({ provider: name, model: req.model, templates }),
    readError: (res) => readAnthropicError(res, name),
    passthrough: {
      family: 'anthropic',
      writeRequest: (call) => writeAnthropicPassthrough(call, config),
    },
    async countTokens(req, _target, send) {
      const res = await send(writeAnthropicCountTokens(req, config, () => {}));
      if (!res.ok) throw await readAnthropicError(res, name);
      const body = (await res.json().catch(() => undefined)) as { input_tokens?: unknown } | undefined;
      if (typeof body?.input_tokens !== 'number') throw new GatewayError('upstream', `Upstream "${name}" sent a token count without input_tokens`);
      return body.input_tokens;
    },
  };
}

// Reusable pieces for Claude on Bedrock (InvokeModel takes and returns Anthropic-native JSON).
export { writeAnthropicBody, DEFAULT_MAX_TOKENS, type AnthropicBodyOptions } from './write-body.ts';
export { createAnthropicEventReader, readAnthropicEvents, type AnthropicEventReader, type AnthropicEventReaderOptions } from './read-events.ts';
export { readAnthropicMessage, readAnthropicBlock, type AnthropicReadOptions } from './read-response.ts';
export { readAnthropicErrorEvent } from './read-error.ts';
export { mapAnthropicErrorType } from './map-error-type.ts';
export { mapAnthropicStopReason } from './map-stop-reason.ts';
export { readAnthropicUsage } from './read-usage.ts';
export type { AnthropicConfig, AnthropicMessagesBody } from './wire-types.ts';
