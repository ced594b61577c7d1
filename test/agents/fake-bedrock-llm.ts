import { chunkFrame } from '../helpers/bedrock-frames.ts';
import { startFakeBedrock, type BedrockCall, type BedrockReply, type FakeBedrock } from '../helpers/fake-bedrock.ts';
import type { FakeLlm } from './fake-llm.ts';
import type { ExtraUpstreams } from './harness.ts';

/** Credentials the gateway signs with and the fake checks (SigV4, service `bedrock`). */
export const BEDROCK_AUTH = { region: 'us-east-1', accessKeyId: 'AKIDAGENTBEDROCK', secretAccessKey: 'agent/bedrock+SECRET' } as const;

/**
 * Betas Bedrock's InvokeModel takes for Claude, as AWS documents them (Anthropic Claude Messages
 * API, request parameters); any other value is a 400. Kept apart from the gateway's own list so
 * that a mistake there shows up here.
 */
const BEDROCK_BETAS = [
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
];

export interface FakeBedrockLlm {
  bedrock: FakeBedrock;
  /** Requests refused the way Bedrock refuses them, with the reason. */
  refusals: string[];
  close(): Promise<void>;
}

/**
 * Claude on a fake Bedrock (InvokeModel, InvokeModelWithResponseStream, CountTokens; every
 * signature checked), answered by the scripted model: a body that passes Bedrock's own rules
 * (protocol digest B7: no `model` or `stream`, `anthropic_version`, betas in the body and only
 * those Bedrock knows, the beta each beta-only field needs) goes to the fake's Anthropic surface,
 * and its answer comes back as Bedrock sends it (event-stream `chunk` frames, base64 events, the
 * invocation metrics on `message_stop`).
 */
export async function startFakeBedrockLlm(llm: FakeLlm): Promise<FakeBedrockLlm> {
  const refusals: string[] = [];
  const bedrock = await startFakeBedrock({
    ...BEDROCK_AUTH,
    handler: async (call) => {
      const body = call.operation === 'count-tokens' ? readCountTokensBody(call) : call.json;
      const problem = checkInvokeBody(body);
      if (problem) {
        refusals.push(`${call.operation} ${call.modelId}: ${problem}`);
        return { error: { type: 'ValidationException', message: problem, status: 400 } };
      }
      return answer(llm, call, body);
    },
  });
  return { bedrock, refusals, close: () => bedrock.close() };
}

function readCountTokensBody(call: BedrockCall): any {
  const blob = call.json?.input?.invokeModel?.body;
  return typeof blob === 'string' ? JSON.parse(Buffer.from(blob, 'base64').toString('utf8')) : undefined;
}

function checkInvokeBody(body: any): string | undefined {
  if (!body || typeof body !== 'object') return 'Malformed input request: body must be a JSON object';
  if (body.anthropic_version !== 'bedrock-2023-05-31') return 'Malformed input request: #: required key [anthropic_version] not found';
  for (const key of ['model', 'stream']) if (key in body) return `${key}: Extra inputs are not permitted`;
  if (typeof body.max_tokens !== 'number') return 'Malformed input request: #: required key [max_tokens] not found';
  const betas: unknown[] = body.anthropic_beta ?? [];
  if (!Array.isArray(betas)) return 'anthropic_beta: Input should be a valid list';
  const unknown = betas.find((b) => !BEDROCK_BETAS.includes(String(b)));
  if (unknown !== undefined) return `invalid beta flag: ${String(unknown)}`;
  const deferred = (body.tools ?? []).findIndex((t: any) => t?.defer_loading !== undefined);
  if (deferred >= 0 && !betas.includes('tool-search-tool-2025-10-19')) return `tools.${deferred}.custom.defer_loading: Extra inputs are not permitted`;
  if (body.context_management !== undefined && !betas.includes('context-management-2025-06-27')) return 'context_management: Extra inputs are not permitted';
  return undefined;
}

/** The Bedrock body as an Anthropic request to the scripted model, and its answer in Bedrock's framing. */
async function answer(llm: FakeLlm, call: BedrockCall, body: any): Promise<BedrockReply> {
  const { anthropic_version: _version, anthropic_beta: betas, ...rest } = body;
  const headers = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...(betas?.length ? { 'anthropic-beta': betas.join(',') } : {}) };
  const stream = call.operation === 'invoke-with-response-stream';
  const path = call.operation === 'count-tokens' ? '/anthropic/v1/messages/count_tokens' : '/anthropic/v1/messages';
  const res = await fetch(`${llm.url}${path}`, { method: 'POST', headers, body: JSON.stringify({ ...rest, model: call.modelId, ...(stream ? { stream: true } : {}) }) });
  if (!res.ok) {
    const message = ((await res.json()) as { error?: { message?: string } }).error?.message ?? `status ${res.status}`;
    return { error: { type: 'ValidationException', message, status: 400 } };
  }
  if (call.operation === 'count-tokens') return { json: { inputTokens: ((await res.json()) as { input_tokens: number }).input_tokens } };
  if (!stream) return { json: await res.json() };
  const events = (await res.text())
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice('data: '.length)))
    .filter((event) => event.type !== 'ping');
  const input = events.find((e) => e.type === 'message_start')?.message?.usage?.input_tokens ?? 0;
  const output = events.findLast((e) => e.type === 'message_delta')?.usage?.output_tokens ?? 0;
  const last = events.at(-1);
  if (last?.type === 'message_stop') {
    last['amazon-bedrock-invocationMetrics'] = { inputTokenCount: input, outputTokenCount: output, invocationLatency: 420, firstByteLatency: 180 };
  }
  return { frames: events.map((event) => chunkFrame(event)), headers: { 'x-amzn-bedrock-content-type': 'application/json' } };
}

/** A rig's extra upstream (see startRig): the fake Bedrock as provider `aws`, serving `model` as Claude `modelId` over InvokeModel. */
export function withBedrock(model: string, modelId: string, started: (front: FakeBedrockLlm) => void): (fake: FakeLlm) => Promise<ExtraUpstreams> {
  return async (fake) => {
    const front = await startFakeBedrockLlm(fake);
    started(front);
    const { region, accessKeyId, secretAccessKey } = BEDROCK_AUTH;
    return {
      providers: { aws: { type: 'bedrock', region, baseUrl: front.bedrock.url, accessKeyId, secretAccessKey } },
      models: [{ id: model, routes: [{ provider: 'aws', model: modelId }] }],
      close: () => front.close(),
    };
  };
}
