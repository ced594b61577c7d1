/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import { createSseReader, type SseMessage } from '../../http/sse-read.ts';
import { pipeStages, type Stage, stageStream } from '../../http/stage.ts';
import type { StreamEvent } from '../../ir.ts';
import { createAnthropicEventReader, type AnthropicEventReaderOptions } from './read-events.ts';

/** Anthropic SSE bytes → StreamEvents; a new instance per response. */
export function readAnthropicStream(opts: AnthropicEventReaderOptions): TransformStream<Uint8Array, StreamEvent> {
  return stageStream(pipeStages(createSseReader(), createAnthropicMessageReader(opts)));
}

/** Anthropic SSE messages → StreamEvents as a synchronous stage. */
function createAnthropicMessageReader(opts: AnthropicEventReaderOptions): Stage<SseMessage, StreamEvent> {
  const reader = createAnthropicEventReader(opts);
  return {
    push(message, emit) {
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
    end(emit) {
      reader.end(emit);
    },
  };
}
