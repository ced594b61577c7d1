/** @see https://platform.claude.com/docs/en/api/messages#response */
import type { ChatResult, Part, Signature, Usage } from '../../ir.ts';
import { writeSignature } from '../../signature.ts';
import type { Warn } from '../../upstreams/types.ts';
import { mapAnthropicFinishReason, type AnthropicStopReason } from './map-finish-reason.ts';

export type AnthropicResponseBlock =
  | { type: 'text'; text: string; citations: unknown[] | null }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | Record<string, unknown>;

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  /** Only when the answer ran searches (a translated Google Search: Gemini's query count). */
  server_tool_use?: { web_search_requests: number };
}

export interface AnthropicMessageResponse {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicResponseBlock[];
  stop_reason: AnthropicStopReason;
  stop_sequence: string | null;
  stop_details: null;
  container: null;
  usage: AnthropicUsage;
}

export interface WriteAnthropicOptions {
  /** The model name the client asked for (never the upstream's id). */
  model: string;
  /** Told about parts with no Anthropic form (another provider's raw blocks). */
  warn?: Warn;
}

export function writeAnthropicResponse(result: ChatResult, opts: WriteAnthropicOptions): AnthropicMessageResponse {
  const id = writeAnthropicMessageId(result.id);
  const content: AnthropicResponseBlock[] = [];
  let calls = 0;
  for (const part of result.parts) {
    if (part.type === 'tool-call') {
      if (part.signature) content.push(writeSignatureCarrier(part.signature));
      content.push({ type: 'tool_use', id: writeAnthropicToolId(part.id, `${id}_${calls}`), name: part.name, input: part.input });
      calls++;
      continue;
    }
    const block = writeBlock(part, opts.warn);
    if (block) content.push(block);
    // Gemini signs text too (2.5: the first answer part; 3: the turn's last part, often an empty
    // one); Anthropic text has no slot, so it rides in an empty thinking block right after.
    if (part.type === 'text' && part.signature) content.push(writeSignatureCarrier(part.signature));
  }
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: opts.model,
    content,
    stop_reason: mapAnthropicFinishReason(result.finish),
    stop_sequence: result.finish === 'stop-sequence' ? (result.stopSequence ?? null) : null,
    stop_details: null,
    container: null,
    usage: writeAnthropicUsage(result.usage),
  };
}

function writeBlock(part: Exclude<Part, { type: 'tool-call' }>, warn: Warn | undefined): AnthropicResponseBlock | undefined {
  switch (part.type) {
    case 'text':
      // Anthropic rejects empty text blocks when the client replays the turn.
      return part.text === '' ? undefined : { type: 'text', text: part.text, citations: part.citations ?? null };
    case 'reasoning':
      if (part.redacted !== undefined) return { type: 'redacted_thinking', data: part.redacted };
      return { type: 'thinking', thinking: part.text, signature: part.signature ? writeSignature(part.signature, 'anthropic') : '' };
    case 'raw':
      if (part.origin === 'anthropic') return part.block;
      warn?.(`a ${part.origin} "${String(part.block.type ?? 'unknown')}" block has no Anthropic form and was left out of the response`);
      return undefined;
    case 'image':
    case 'document':
    case 'tool-result':
      warn?.(`a ${part.type} part in the answer has no Anthropic response form and was left out`);
      return undefined;
    default: {
      const unknown: never = part;
      throw new Error(`unhandled part ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Anthropic's tool_use and text blocks have no slot for another provider's signature (Gemini's
 * thoughtSignature, which Gemini wants back on the next turn). It rides in an empty thinking
 * block next to the block it belongs to; readAnthropicRequest moves it back onto the call or text.
 */
export function writeSignatureCarrier(signature: Signature): { type: 'thinking'; thinking: string; signature: string } {
  return { type: 'thinking', thinking: '', signature: writeSignature(signature, 'anthropic') };
}

export function writeAnthropicUsage(usage: Partial<Usage>): AnthropicUsage {
  const out: AnthropicUsage = {
    input_tokens: usage.inputTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    cache_creation_input_tokens: usage.cacheWriteTokens ?? 0,
    cache_read_input_tokens: usage.cacheReadTokens ?? 0,
  };
  if (usage.webSearchRequests !== undefined) out.server_tool_use = { web_search_requests: usage.webSearchRequests };
  return out;
}

const VALID_ID = /^[a-zA-Z0-9_-]+$/;

/** Message ids start with msg_; other providers' ids (chatcmpl-…) are kept behind the prefix. */
export function writeAnthropicMessageId(id: string): string {
  if (id.startsWith('msg_') && VALID_ID.test(id)) return id;
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return `msg_${clean || 'switchyard'}`;
}

/**
 * Anthropic refuses tool_use ids outside ^[a-zA-Z0-9_-]+$ when the turn is replayed, and other
 * providers use ids like `functions.Bash:12`. The replacement is deterministic (the same id always
 * maps to the same value, so a tool_result sent back still pairs up) and carries a hash of the
 * original, so two ids that differ only in replaced characters stay distinct.
 */
export function writeAnthropicToolId(id: string, fallback: string): string {
  if (VALID_ID.test(id)) return id;
  if (id === '') return `toolu_${fallback.replace(/[^a-zA-Z0-9_-]/g, '_')}`;
  return `${id.replace(/[^a-zA-Z0-9_-]/g, '_')}_${fnv1a(id)}`;
}

/** 32-bit FNV-1a in base 36: short and stable; collisions only matter within one conversation. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}
