/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import type { JsonTextSpan } from '../../http/json-text-span.ts';
import { completeUsage, SpanTextDelta, type BlockStart, type FinishReason, type StreamEvent, type Usage, type UpstreamKind } from '../../ir.ts';
import { mapAnthropicStopReason } from './map-stop-reason.ts';
import { readAnthropicErrorEvent } from './read-error.ts';
import { readAnthropicPartialUsage } from './read-usage.ts';
import type { AnthropicResponseBlock, AnthropicUsage } from './wire-types.ts';

export interface AnthropicEventReaderOptions {
  /** Provider name, for error messages. */
  provider: string;
  /** Upstream kind that can verify the signatures and raw blocks read here (Bedrock passes 'bedrock'). */
  origin?: UpstreamKind;
}

export interface AnthropicEventReader {
  /** One parsed stream event object (the JSON after `data:`) → zero or more StreamEvents. */
  read(event: unknown, emit: (event: StreamEvent) => void): void;
  /**
   * A text_delta of the upstream block `index` whose text is still in the upstream's bytes: what
   * `read` does with that delta, the text left undecoded.
   */
  readText(index: number, span: JsonTextSpan, emit: (event: StreamEvent) => void): void;
  /** The same for a thinking_delta: its text is decoded all the same (a Gemini client's signature envelope carries it). */
  readThinking(index: number, span: JsonTextSpan, emit: (event: StreamEvent) => void): void;
  /** The upstream body ended: finishes a stream that was cut before message_stop. */
  end(emit: (event: StreamEvent) => void): void;
}

/** Which deltas a block accepts; 'raw' takes input_json_delta (server_tool_use), 'sealed' none. */
type BlockKind = 'text' | 'reasoning' | 'tool' | 'raw' | 'sealed';

interface AnthropicEvent {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage };
  content_block?: AnthropicResponseBlock;
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null; stop_sequence?: string | null };
  usage?: AnthropicUsage;
}

/**
 * Anthropic stream events → StreamEvents, shared by the Anthropic SSE reader and Bedrock's
 * InvokeModelWithResponseStream (which carries the same event objects). Tolerant: ping, unknown
 * events, unknown deltas and deltas that do not fit their block are ignored. Block indexes are
 * renumbered so that blocks never overlap even if the upstream forgets a content_block_stop.
 */
export function createAnthropicEventReader(opts: AnthropicEventReaderOptions): AnthropicEventReader {
  const origin = opts.origin ?? 'anthropic';
  const indexes = new Map<number, number>();
  let next = 0;
  let open: { index: number; kind: BlockKind } | undefined;
  let started = false;
  let done = false;
  let usage: Partial<Usage> = {};
  let reason: FinishReason | undefined;
  let stopSequence: string | undefined;

  const close = (emit: (e: StreamEvent) => void) => {
    if (open) emit({ type: 'block-end', index: open.index });
    open = undefined;
  };
  const finish = (emit: (e: StreamEvent) => void) => {
    close(emit);
    done = true;
    emit({ type: 'finish', reason: reason ?? 'stop', ...(stopSequence !== undefined ? { stopSequence } : {}), usage: completeUsage(usage) });
  };

  const startBlock = (event: AnthropicEvent, emit: (e: StreamEvent) => void) => {
    const block = event.content_block;
    if (!block || typeof event.index !== 'number') return;
    close(emit);
    const index = next++;
    indexes.set(event.index, index);
    const [start, kind] = blockStart(block, origin);
    open = { index, kind };
    emit({ type: 'block-start', index, block: start });
    // Start blocks are normally empty; anything already in them is sent as a first delta.
    if (block.type === 'text' && typeof block.text === 'string' && block.text) emit({ type: 'text-delta', index, text: block.text });
    if (block.type === 'thinking') {
      if (typeof block.thinking === 'string' && block.thinking) emit({ type: 'reasoning-delta', index, text: block.thinking });
      if (typeof block.signature === 'string' && block.signature) emit({ type: 'signature', index, signature: { origin, value: block.signature } });
    }
    if (block.type === 'tool_use' && isNonEmptyObject(block.input)) emit({ type: 'tool-input-delta', index, json: JSON.stringify(block.input) });
  };

  const applyDelta = (event: AnthropicEvent, emit: (e: StreamEvent) => void) => {
    const index = typeof event.index === 'number' ? indexes.get(event.index) : undefined;
    const delta = event.delta;
    if (!open || index !== open.index || !delta) return;
    const kind = open.kind;
    if (delta.type === 'text_delta' && kind === 'text' && delta.text) emit({ type: 'text-delta', index, text: delta.text });
    else if (delta.type === 'thinking_delta' && kind === 'reasoning' && delta.thinking) emit({ type: 'reasoning-delta', index, text: delta.thinking });
    else if (delta.type === 'signature_delta' && kind === 'reasoning' && delta.signature) emit({ type: 'signature', index, signature: { origin, value: delta.signature } });
    else if (delta.type === 'input_json_delta' && (kind === 'tool' || kind === 'raw') && delta.partial_json) emit({ type: 'tool-input-delta', index, json: delta.partial_json });
    // citations_delta and future delta types: ignored for now.
  };

  return {
    readText(upstreamIndex, span, emit) {
      if (done) return;
      const index = indexes.get(upstreamIndex);
      if (open && index === open.index && open.kind === 'text') emit(new SpanTextDelta(index, span));
    },
    readThinking(upstreamIndex, span, emit) {
      if (done) return;
      const index = indexes.get(upstreamIndex);
      if (open && index === open.index && open.kind === 'reasoning') emit({ type: 'reasoning-delta', index, text: span.text(), span });
    },
    read(raw, emit) {
      if (done || typeof raw !== 'object' || raw === null) return;
      const event = raw as AnthropicEvent;
      switch (event.type) {
        case 'message_start': {
          if (started) return;
          started = true;
          usage = readAnthropicPartialUsage(event.message?.usage);
          emit({ type: 'start', id: String(event.message?.id ?? ''), model: String(event.message?.model ?? ''), usage: { ...usage } });
          return;
        }
        case 'content_block_start':
          if (started) startBlock(event, emit);
          return;
        case 'content_block_delta':
          applyDelta(event, emit);
          return;
        case 'content_block_stop':
          if (open && typeof event.index === 'number' && indexes.get(event.index) === open.index) close(emit);
          return;
        case 'message_delta': {
          if (event.delta?.stop_reason) reason = mapAnthropicStopReason(event.delta.stop_reason);
          if (typeof event.delta?.stop_sequence === 'string') stopSequence = event.delta.stop_sequence;
          // Cumulative numbers: output_tokens always replaces, the rest only when reported.
          // `usage` is this reader's own object (what it emits are copies), so it is updated in place.
          Object.assign(usage, readAnthropicPartialUsage(event.usage));
          return;
        }
        case 'message_stop':
          if (started) finish(emit);
          return;
        case 'error':
          done = true;
          emit({ type: 'error', error: readAnthropicErrorEvent(raw, opts.provider) });
          return;
        default:
          return;
      }
    },
    end(emit) {
      if (done) return;
      if (!started) {
        done = true;
        emit({ type: 'error', error: new GatewayError('upstream', `Upstream "${opts.provider}" ended the stream before sending a message`) });
        return;
      }
      finish(emit);
    },
  };
}

/** The same reader as a stream stage over parsed event objects. */
export function readAnthropicEvents(opts: AnthropicEventReaderOptions): TransformStream<unknown, StreamEvent> {
  const reader = createAnthropicEventReader(opts);
  let emit: (event: StreamEvent) => void = () => {};
  return new TransformStream<unknown, StreamEvent>({
    start(controller) {
      emit = (event) => controller.enqueue(event);
    },
    transform(event) {
      reader.read(event, emit);
    },
    flush() {
      reader.end(emit);
    },
  });
}

function blockStart(block: AnthropicResponseBlock, origin: UpstreamKind): [BlockStart, BlockKind] {
  switch (block.type) {
    case 'text':
      return [{ type: 'text' }, 'text'];
    case 'thinking':
      return [{ type: 'reasoning' }, 'reasoning'];
    case 'redacted_thinking':
      return [{ type: 'reasoning', redacted: String(block.data ?? '') }, 'sealed'];
    case 'tool_use':
      return [{ type: 'tool-call', id: String(block.id ?? ''), name: String(block.name ?? '') }, 'tool'];
    default:
      // server_tool_use starts with input {} and fills it through input_json_delta, like tool_use.
      return [{ type: 'raw', origin, block }, 'raw'];
  }
}

function isNonEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length > 0;
}
