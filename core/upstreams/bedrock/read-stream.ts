/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html */
import { GatewayError } from '../../errors.ts';
import { completeUsage, type BlockStart, type FinishReason, type StreamEvent, type Usage } from '../../ir.ts';
import { createAnthropicEventReader } from '../anthropic/index.ts';
import { type EventStreamFrame, readEventStream } from './event-stream.ts';
import { mapBedrockStopReason } from './map-stop-reason.ts';
import { readBedrockFrame, readChunkText } from './read-frame.ts';
import { type BedrockUsage, mintMessageId, readBedrockPartialUsage } from './read-response.ts';

type Emit = (event: StreamEvent) => void;

/**
 * Event-stream bytes → StreamEvents through a per-frame reader. An error (exception frame, broken
 * framing, unreadable payload) is emitted as the last event, then the input is refused, which
 * cancels the upstream body: nothing after an exception is trusted.
 */
function frameReader(handle: (frame: EventStreamFrame, emit: Emit) => void, end: (emit: Emit) => void): TransformStream<Uint8Array, StreamEvent> {
  const frames = readEventStream();
  let ended: 'finish' | 'error' | undefined;
  const events = new TransformStream<EventStreamFrame, StreamEvent>({
    transform(frame, controller) {
      // After the terminal event nothing more is read (an exception after finish changes nothing).
      if (ended) return;
      handle(frame, (event) => {
        if (ended) return;
        controller.enqueue(event);
        if (event.type === 'error' || event.type === 'finish') ended = event.type;
      });
      if (ended === 'error') controller.terminate();
    },
    flush(controller) {
      if (!ended) end((event) => controller.enqueue(event));
    },
  });
  return { writable: frames.writable, readable: frames.readable.pipeThrough(events) } as TransformStream<Uint8Array, StreamEvent>;
}

/** Claude through InvokeModelWithResponseStream: each `chunk` carries one Anthropic stream event. */
export function readBedrockInvokeStream(provider: string): TransformStream<Uint8Array, StreamEvent> {
  const reader = createAnthropicEventReader({ provider, origin: 'bedrock' });
  return frameReader(
    (raw, emit) => {
      const frame = readBedrockFrame(raw);
      if (frame.kind === 'error') return emit({ type: 'error', error: frame.error });
      if (frame.kind !== 'event' || frame.type !== 'chunk') return;
      const text = readChunkText(frame.payload);
      let event: unknown;
      try {
        event = text === undefined ? undefined : JSON.parse(text);
      } catch {
        event = undefined;
      }
      if (event === undefined) return emit({ type: 'error', error: new GatewayError('upstream', `Upstream "${provider}" sent a stream chunk that is not base64 JSON`) });
      reader.read(event, emit);
    },
    (emit) => reader.end(emit),
  );
}

type BlockKind = 'text' | 'reasoning' | 'tool' | 'sealed';

/** ConverseStream events → StreamEvents. Text and reasoning blocks have no start event: a block begins with its first delta. */
export function readBedrockConverseStream(provider: string, model: string): TransformStream<Uint8Array, StreamEvent> {
  let started = false;
  let next = 0;
  let open: { from: number; index: number; kind: BlockKind; signature: string } | undefined;
  let reason: FinishReason | undefined;
  let stopSequence: string | undefined;
  let stopped = false;
  let usage: Partial<Usage> = {};

  const start = (emit: Emit) => {
    if (!started) emit({ type: 'start', id: mintMessageId(), model });
    started = true;
  };
  const close = (emit: Emit) => {
    if (!open) return;
    if (open.signature) emit({ type: 'signature', index: open.index, signature: { origin: 'bedrock', value: open.signature } });
    emit({ type: 'block-end', index: open.index });
    open = undefined;
  };
  const openBlock = (from: number, block: BlockStart, kind: BlockKind, emit: Emit): number => {
    close(emit);
    const index = next++;
    open = { from, index, kind, signature: '' };
    emit({ type: 'block-start', index, block });
    return index;
  };
  /** The open block if it is `kind` at Bedrock index `from`, else a newly opened one. */
  const blockFor = (from: number, kind: 'text' | 'reasoning', emit: Emit): NonNullable<typeof open> => {
    if (!open || open.from !== from || open.kind !== kind) openBlock(from, { type: kind }, kind, emit);
    return open!;
  };
  const finish = (emit: Emit) => {
    close(emit);
    emit({ type: 'finish', reason: reason ?? 'stop', ...(stopSequence !== undefined ? { stopSequence } : {}), usage: completeUsage(usage) });
  };

  const delta = (payload: Record<string, unknown>, emit: Emit) => {
    const from = typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : (open?.from ?? 0);
    const d = (payload.delta ?? {}) as { text?: unknown; toolUse?: { input?: unknown }; reasoningContent?: { text?: unknown; signature?: unknown; redactedContent?: unknown } };
    if (typeof d.text === 'string') {
      if (d.text) emit({ type: 'text-delta', index: blockFor(from, 'text', emit).index, text: d.text });
    } else if (d.toolUse) {
      if (open?.kind === 'tool' && open.from === from && typeof d.toolUse.input === 'string' && d.toolUse.input) {
        emit({ type: 'tool-input-delta', index: open.index, json: d.toolUse.input });
      }
    } else if (d.reasoningContent) {
      const r = d.reasoningContent;
      if (typeof r.redactedContent === 'string') {
        openBlock(from, { type: 'reasoning', redacted: r.redactedContent }, 'sealed', emit);
        return;
      }
      if (typeof r.text === 'string' && r.text) emit({ type: 'reasoning-delta', index: blockFor(from, 'reasoning', emit).index, text: r.text });
      // The signature may come in pieces; it is sent whole when the block ends.
      if (typeof r.signature === 'string' && r.signature) blockFor(from, 'reasoning', emit).signature += r.signature;
    }
    // citation, image and toolResult deltas have no IR form yet: skipped.
  };

  return frameReader(
    (raw, emit) => {
      const frame = readBedrockFrame(raw);
      if (frame.kind === 'error') return emit({ type: 'error', error: frame.error });
      if (frame.kind !== 'event') return;
      const p = frame.payload;
      switch (frame.type) {
        case 'messageStart':
          return start(emit);
        case 'contentBlockStart': {
          start(emit);
          const tool = (p.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
          const from = typeof p.contentBlockIndex === 'number' ? p.contentBlockIndex : next;
          if (tool) openBlock(from, { type: 'tool-call', id: String(tool.toolUseId ?? ''), name: String(tool.name ?? '') }, 'tool', emit);
          return;
        }
        case 'contentBlockDelta':
          start(emit);
          return delta(p, emit);
        case 'contentBlockStop':
          if (open && (typeof p.contentBlockIndex !== 'number' || p.contentBlockIndex === open.from)) close(emit);
          return;
        case 'messageStop': {
          start(emit);
          stopped = true;
          reason = mapBedrockStopReason(typeof p.stopReason === 'string' ? p.stopReason : undefined);
          const stop = (p.additionalModelResponseFields as { stop_sequence?: unknown } | undefined)?.stop_sequence;
          if (typeof stop === 'string') stopSequence = stop;
          return close(emit);
        }
        case 'metadata':
          // This reader's own object (what it emits are copies): updated in place.
          Object.assign(usage, readBedrockPartialUsage(p.usage as BedrockUsage | undefined));
          // Usage comes after messageStop: that is the moment the answer is complete.
          if (stopped) finish(emit);
          else emit({ type: 'usage', usage: { ...usage } });
          return;
        default:
          return;
      }
    },
    (emit) => {
      if (stopped) return finish(emit);
      emit({ type: 'error', error: new GatewayError('upstream', `Upstream "${provider}" ended the stream before ${started ? 'messageStop' : 'sending a message'}`) });
    },
  );
}
