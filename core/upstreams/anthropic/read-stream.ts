/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import { readSse, type SseMessage } from '../../http/sse-read.ts';
import type { StreamEvent } from '../../ir.ts';
import { createAnthropicEventReader, type AnthropicEventReaderOptions } from './read-events.ts';

/** Anthropic SSE bytes → StreamEvents; a new instance per response. */
export function readAnthropicStream(opts: AnthropicEventReaderOptions): TransformStream<Uint8Array, StreamEvent> {
  const sse = readSse();
  const reader = createAnthropicEventReader(opts);
  let emit: (event: StreamEvent) => void = () => {};
  const events = new TransformStream<SseMessage, StreamEvent>({
    start(controller) {
      emit = (event) => controller.enqueue(event);
    },
    transform(message) {
      if (message.event === 'ping') return;
      let event: unknown;
      try {
        event = JSON.parse(message.data);
      } catch (err) {
        throw new GatewayError('upstream', `Upstream "${opts.provider}" sent a stream event that is not JSON`, { cause: err });
      }
      // The event name is authoritative when the payload lacks its own `type`.
      if (message.event && typeof event === 'object' && event !== null && !('type' in event)) (event as { type?: string }).type = message.event;
      reader.read(event, emit);
    },
    flush() {
      reader.end(emit);
    },
  });
  return { writable: sse.writable, readable: sse.readable.pipeThrough(events) } as TransformStream<Uint8Array, StreamEvent>;
}
