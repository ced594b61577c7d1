import type { JsonTextSpan } from '../../http/json-text-span.ts';
import type { SseFrame } from '../../http/sse-write.ts';
import type { AnthropicStopReason } from './map-finish-reason.ts';
import type { AnthropicUsage } from './write-response.ts';

/**
 * The `data:` text of the Anthropic stream events every answer has, written as text: byte for
 * byte what `JSON.stringify({ type, ...body })` gives (test/unit/families/anthropic/
 * write-frame-text.test.ts), without building the objects. `JSON.stringify` of such a small
 * object costs ~0.5 µs on Node 20, and a translated stream has six of them besides its deltas.
 * Only strings that come from outside (ids, model names, stop sequences, text) go through
 * `JSON.stringify`; the rest are numbers and fixed names.
 */
export function writeMessageStartText(id: string, model: string, usage: AnthropicUsage): string {
  return `{"type":"message_start","message":{"id":${JSON.stringify(id)},"type":"message","role":"assistant","model":${JSON.stringify(model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":${writeUsageText(usage)}}}`;
}

/**
 * message_delta's usage is cumulative, output_tokens first and always there (the SDK reads it
 * unguarded).
 */
export function writeMessageDeltaText(reason: AnthropicStopReason, stopSequence: string | null, u: AnthropicUsage): string {
  return `{"type":"message_delta","delta":{"stop_reason":${JSON.stringify(reason)},"stop_sequence":${stopSequence === null ? 'null' : JSON.stringify(stopSequence)}},"usage":{"output_tokens":${num(u.output_tokens)},"input_tokens":${num(u.input_tokens)},"cache_creation_input_tokens":${num(u.cache_creation_input_tokens)},"cache_read_input_tokens":${num(u.cache_read_input_tokens)}${u.server_tool_use ? `,"server_tool_use":{"web_search_requests":${num(u.server_tool_use.web_search_requests)}}` : ''}}}`;
}

export function writeTextBlockStartText(index: number): string {
  return `{"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}`;
}

export function writeThinkingBlockStartText(index: number): string {
  return `{"type":"content_block_start","index":${index},"content_block":{"type":"thinking","thinking":"","signature":""}}`;
}

export function writeBlockStopText(index: number): string {
  return `{"type":"content_block_stop","index":${index}}`;
}

export function writeTextDeltaText(index: number, text: string): string {
  return `{"type":"content_block_delta","index":${index},"delta":{"type":"text_delta","text":${JSON.stringify(text)}}}`;
}

export function writeThinkingDeltaText(index: number, thinking: string): string {
  return `{"type":"content_block_delta","index":${index},"delta":{"type":"thinking_delta","thinking":${JSON.stringify(thinking)}}}`;
}

const encoder = new TextEncoder();
/** The bytes of a delta frame before its text, by delta kind and block index (most answers use the first few). */
const deltaHeads = { text: [] as Uint8Array[], thinking: [] as Uint8Array[] };
const DELTA_TAIL = encoder.encode('"}}\n\n');

/**
 * The `content_block_delta` frame of text or thinking still in the upstream's bytes: the frame
 * `{ event: 'content_block_delta', data: writeTextDeltaText(index, text) }` (or
 * `writeThinkingDeltaText`) gives, byte for byte (the span is written as JSON.stringify writes its
 * text), with the text copied instead of decoded and encoded again.
 */
export class TextDeltaFrame implements SseFrame {
  readonly event = 'content_block_delta';
  readonly #head: Uint8Array;

  constructor(
    readonly index: number,
    readonly span: JsonTextSpan,
    readonly kind: 'text' | 'thinking' = 'text',
  ) {
    this.#head = deltaHeads[kind][index] ?? encodeDeltaHead(kind, index);
  }

  get data(): string {
    const text = this.span.text();
    return this.kind === 'text' ? writeTextDeltaText(this.index, text) : writeThinkingDeltaText(this.index, text);
  }

  get byteLength(): number {
    return this.#head.length + this.span.byteLength + DELTA_TAIL.length;
  }

  writeInto(out: Uint8Array, at: number): number {
    out.set(this.#head, at);
    const end = this.span.writeInto(out, at + this.#head.length);
    for (let i = 0; i < DELTA_TAIL.length; i++) out[end + i] = DELTA_TAIL[i]!;
    return end + DELTA_TAIL.length;
  }
}

function encodeDeltaHead(kind: 'text' | 'thinking', index: number): Uint8Array {
  const head = encoder.encode(`event: content_block_delta\ndata: {"type":"content_block_delta","index":${index},"delta":{"type":"${kind}_delta","${kind}":"`);
  if (index < 64) deltaHeads[kind][index] = head;
  return head;
}

export const PING_TEXT = '{"type":"ping"}';
export const MESSAGE_STOP_TEXT = '{"type":"message_stop"}';

function writeUsageText(u: AnthropicUsage): string {
  return `{"input_tokens":${num(u.input_tokens)},"output_tokens":${num(u.output_tokens)},"cache_creation_input_tokens":${num(u.cache_creation_input_tokens)},"cache_read_input_tokens":${num(u.cache_read_input_tokens)}}`;
}

/** A number as JSON writes it: a finite one as `${n}` gives it (-0 as 0 too), anything else as null. */
function num(n: number): number | null {
  return Number.isFinite(n) ? n : null;
}
