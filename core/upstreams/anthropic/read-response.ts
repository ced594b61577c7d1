/** @see https://docs.anthropic.com/en/api/messages#response-content */
import { GatewayError } from '../../errors.ts';
import type { ChatResult, Part, UpstreamKind } from '../../ir.ts';
import { mapAnthropicStopReason } from './map-stop-reason.ts';
import { readAnthropicUsage } from './read-usage.ts';
import type { AnthropicMessage, AnthropicResponseBlock } from './wire-types.ts';

export interface AnthropicReadOptions {
  /** Upstream kind that can verify the signatures and raw blocks read here (Bedrock passes 'bedrock'). */
  origin?: UpstreamKind;
}

/** A Messages API response (also Bedrock InvokeModel's body for Claude) → ChatResult. */
export function readAnthropicMessage(body: unknown, opts: AnthropicReadOptions = {}): ChatResult {
  if (typeof body !== 'object' || body === null) throw new GatewayError('upstream', 'Upstream sent a response that is not a message object');
  const msg = body as Partial<AnthropicMessage>;
  const origin = opts.origin ?? 'anthropic';
  const result: ChatResult = {
    id: String(msg.id ?? ''),
    model: String(msg.model ?? ''),
    parts: (Array.isArray(msg.content) ? msg.content : []).map((block) => readAnthropicBlock(block, origin)),
    finish: mapAnthropicStopReason(msg.stop_reason),
    usage: readAnthropicUsage(msg.usage),
  };
  if (typeof msg.stop_sequence === 'string') result.stopSequence = msg.stop_sequence;
  return result;
}

/** One complete response block → an IR part; what the IR has no slot for stays a raw part. */
export function readAnthropicBlock(block: AnthropicResponseBlock, origin: UpstreamKind): Part {
  switch (block.type) {
    case 'text': {
      const citations = block.citations;
      return Array.isArray(citations) && citations.length
        ? { type: 'text', text: String(block.text ?? ''), citations }
        : { type: 'text', text: String(block.text ?? '') };
    }
    case 'thinking': {
      const signature = typeof block.signature === 'string' && block.signature ? { origin, value: block.signature } : undefined;
      return signature ? { type: 'reasoning', text: String(block.thinking ?? ''), signature } : { type: 'reasoning', text: String(block.thinking ?? '') };
    }
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: String(block.data ?? '') };
    case 'tool_use':
      return { type: 'tool-call', id: String(block.id), name: String(block.name), input: asObject(block.input) };
    default:
      return { type: 'raw', origin, block };
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
