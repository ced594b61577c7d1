/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import { JsonTemplate } from '../../http/json-template.ts';
import { createSseReader, type SseMessage } from '../../http/sse-read.ts';
import { pipeStages, type Stage, stageStream } from '../../http/stage.ts';
import type { StreamEvent } from '../../ir.ts';
import { createAnthropicEventReader, type AnthropicEventReaderOptions } from './read-events.ts';

/** Anthropic SSE bytes → StreamEvents; a new instance per response. */
export function readAnthropicStream(opts: AnthropicEventReaderOptions): TransformStream<Uint8Array, StreamEvent> {
  return stageStream(pipeStages(createSseReader(), createAnthropicMessageReader(opts)));
}

/** Which string of a delta varies from one content_block_delta to the next, by delta type. */
const DELTA_TEXT = new Map([
  ['text_delta', 'text'],
  ['thinking_delta', 'thinking'],
  ['input_json_delta', 'partial_json'],
]);

/** Templates learned in a row without one event read through them, after which none are learned. */
const MAX_UNUSED_TEMPLATES = 3;

/**
 * Anthropic SSE messages → StreamEvents as a synchronous stage. Deltas that repeat the last one
 * but for their text are read without JSON.parse (see JsonTemplate): the event reader takes the
 * text out of a content_block_delta and keeps nothing of the event.
 */
function createAnthropicMessageReader(opts: AnthropicEventReaderOptions): Stage<SseMessage, StreamEvent> {
  const reader = createAnthropicEventReader(opts);
  let template: JsonTemplate<DeltaEvent> | undefined;
  let unusedTemplates = 0;
  return {
    push(message, emit) {
      if (message.event === 'ping') return;
      const data = message.data;
      const filled = template?.fill(data);
      if (filled) {
        unusedTemplates = 0;
        reader.read(filled, emit);
        return;
      }
      let event: unknown;
      try {
        event = JSON.parse(data);
      } catch (err) {
        throw new GatewayError('upstream', `Upstream "${opts.provider}" sent a stream event that is not JSON`, { cause: err });
      }
      if (typeof event !== 'object' || event === null) return reader.read(event, emit);
      if (!('type' in event)) {
        // The event name is authoritative when the payload lacks its own `type`.
        if (message.event) (event as { type?: string }).type = message.event;
      } else if (unusedTemplates < MAX_UNUSED_TEMPLATES) {
        const learned = learnDeltaTemplate(data, event as DeltaEvent);
        if (learned) {
          template = learned;
          unusedTemplates++;
        }
      }
      reader.read(event, emit);
    },
    end(emit) {
      reader.end(emit);
    },
  };
}

interface DeltaEvent {
  type?: unknown;
  delta?: Record<string, unknown>;
}

/** A template of a content_block_delta that carries its own `type`, varying in its delta's text. */
function learnDeltaTemplate(data: string, event: DeltaEvent): JsonTemplate<DeltaEvent> | undefined {
  if (event.type !== 'content_block_delta' || typeof event.delta?.type !== 'string') return undefined;
  const key = DELTA_TEXT.get(event.delta.type);
  if (key === undefined || typeof event.delta[key] !== 'string') return undefined;
  return JsonTemplate.learn<DeltaEvent>(data, key, (parsed) => parsed.delta);
}
