/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax */
import { GatewayError } from '../../errors.ts';
import type { ChatResult, Part, Usage } from '../../ir.ts';
import { mapBedrockStopReason } from './map-stop-reason.ts';

export interface BedrockUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
}

/** Limited to what is read here; other fields (metrics, trace, citations…) are ignored. */
export interface BedrockConverseResponse {
  output?: { message?: { role?: string; content?: Array<Record<string, unknown>> } };
  stopReason?: string;
  usage?: BedrockUsage;
  additionalModelResponseFields?: { stop_sequence?: unknown } | null;
}

/** Converse output → ChatResult. Converse has no message id, so one is minted. */
export function readBedrockConverseResponse(body: unknown, model: string): ChatResult {
  if (typeof body !== 'object' || body === null) throw new GatewayError('upstream', 'Bedrock sent a Converse response that is not an object');
  const res = body as BedrockConverseResponse;
  const content = res.output?.message?.content;
  const result: ChatResult = {
    id: mintMessageId(),
    model,
    parts: (Array.isArray(content) ? content : []).flatMap(readBedrockBlock),
    finish: mapBedrockStopReason(res.stopReason),
    usage: readBedrockUsage(res.usage),
  };
  const stop = res.additionalModelResponseFields?.stop_sequence;
  if (typeof stop === 'string') result.stopSequence = stop;
  return result;
}

/** One output content block → IR parts; unknown blocks stay raw (only Bedrock takes them back). */
function readBedrockBlock(block: Record<string, unknown>): Part[] {
  if (typeof block.text === 'string') return block.text ? [{ type: 'text', text: block.text }] : [];
  const toolUse = block.toolUse as { toolUseId?: unknown; name?: unknown; input?: unknown } | undefined;
  if (toolUse) return [{ type: 'tool-call', id: String(toolUse.toolUseId ?? ''), name: String(toolUse.name ?? ''), input: asObject(toolUse.input) }];
  const reasoning = block.reasoningContent as { reasoningText?: { text?: unknown; signature?: unknown }; redactedContent?: unknown } | undefined;
  if (reasoning?.reasoningText) {
    const text = String(reasoning.reasoningText.text ?? '');
    const signature = reasoning.reasoningText.signature;
    // gpt-oss reasoning comes unsigned: it is shown but never replayed (see write-content.ts).
    return typeof signature === 'string' && signature
      ? [{ type: 'reasoning', text, signature: { origin: 'bedrock', value: signature } }]
      : [{ type: 'reasoning', text }];
  }
  if (typeof reasoning?.redactedContent === 'string') {
    return [{ type: 'reasoning', text: '', redacted: reasoning.redactedContent }];
  }
  return [{ type: 'raw', origin: 'bedrock', block }];
}

/** Bedrock's inputTokens already excludes cache reads and writes, as the IR's does. */
export function readBedrockUsage(usage: BedrockUsage | undefined): Usage {
  return { inputTokens: 0, outputTokens: 0, ...readBedrockPartialUsage(usage) };
}

export function readBedrockPartialUsage(usage: BedrockUsage | undefined): Partial<Usage> {
  const out: Partial<Usage> = {};
  if (!usage) return out;
  if (typeof usage.inputTokens === 'number') out.inputTokens = usage.inputTokens;
  if (typeof usage.outputTokens === 'number') out.outputTokens = usage.outputTokens;
  if (typeof usage.cacheReadInputTokens === 'number') out.cacheReadTokens = usage.cacheReadInputTokens;
  if (typeof usage.cacheWriteInputTokens === 'number') out.cacheWriteTokens = usage.cacheWriteInputTokens;
  return out;
}

/** `msg_bdrk_` + 24 hex digits, shaped like the ids Bedrock gives Claude messages. */
export function mintMessageId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  let hex = '';
  for (const b of bytes) hex += b.toString(16).padStart(2, '0');
  return `msg_bdrk_${hex}`;
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
