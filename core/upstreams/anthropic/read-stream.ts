/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import { JsonTemplate, ReadView } from '../../http/json-template.ts';
import type { SseMessage } from '../../http/sse-read.ts';
import { createSseByteReader, findEventValue, readEventEnd, readTemplateData, type SseMessageReader } from '../../http/sse-read-bytes.ts';
import { stageStream } from '../../http/stage.ts';
import type { TemplateCache } from '../../http/template-cache.ts';
import type { StreamEvent } from '../../ir.ts';
import { createAnthropicEventReader, type AnthropicEventReaderOptions } from './read-events.ts';

export interface AnthropicStreamOptions extends AnthropicEventReaderOptions {
  /** The upstream model, the key of `templates`. */
  model?: string;
  /** The delta templates learned from this upstream's earlier streams, by model: this stream's first guess, and where it leaves its own. */
  templates?: TemplateCache<DeltaTemplate>;
}

/** A learned delta template and what its varying string is. */
export interface DeltaTemplate {
  template: JsonTemplate<DeltaEvent>;
  /** The upstream block index of a template whose varying string is a text_delta's text or a thinking_delta's thinking, else -1. */
  spanIndex: number;
  thinking: boolean;
}

/** Anthropic SSE bytes → StreamEvents; a new instance per response. Most text deltas are read from their bytes (see `takeEvent`). */
export function readAnthropicStream(opts: AnthropicStreamOptions): TransformStream<Uint8Array, StreamEvent> {
  return stageStream(createSseByteReader(createAnthropicMessageReader(opts)));
}

const DELTA_EVENT = new TextEncoder().encode('content_block_delta');
const CR = 0x0d;
const LF = 0x0a;

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
export function createAnthropicMessageReader(opts: AnthropicStreamOptions): SseMessageReader<StreamEvent> {
  const reader = createAnthropicEventReader(opts);
  // The last stream of this model's template reads this one's deltas from the first, when they
  // have the same shape (a template that does not fit costs a parse, then this stream learns).
  const cached = opts.model === undefined ? undefined : opts.templates?.get(opts.model);
  let template = cached?.template;
  let unusedTemplates = 0;
  let spanIndex = cached?.spanIndex ?? -1;
  let thinking = cached?.thinking ?? false;
  const views = new ReadView();
  return {
    takes: () => spanIndex >= 0,
    /**
     * A content_block_delta (named so, or unnamed) whose data is the template's with a text that
     * JSON.stringify writes back byte for byte is read as its parse would be, its text left in the
     * upstream's bytes (see JsonTextSpan).
     */
    takeEvent(bytes, from, limit, emit) {
      let at = from;
      const name = findEventValue(bytes, at, limit);
      if (name >= 0) {
        for (let i = 0; i < DELTA_EVENT.length; i++) if (bytes[name + i] !== DELTA_EVENT[i]) return -1;
        at = name + DELTA_EVENT.length;
        // The name's line ends in LF or CRLF.
        if (bytes[at] === CR) at++;
        if (bytes[at] !== LF) return -1;
        at++;
      }
      if (!template) return -1;
      const span = readTemplateData(template, views, bytes, at, limit);
      if (!span) return -1;
      unusedTemplates = 0;
      // An empty text is no delta, as in the event reader.
      if (span.byteLength > 0) {
        if (thinking) reader.readThinking(spanIndex, span, emit);
        else reader.readText(spanIndex, span, emit);
      }
      return readEventEnd(bytes, template.end, limit);
    },
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
          ({ template, spanIndex, thinking } = learned);
          unusedTemplates++;
          if (opts.model !== undefined) opts.templates?.set(opts.model, learned);
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
  index?: unknown;
  delta?: Record<string, unknown>;
}

/** A template of a content_block_delta that carries its own `type`, varying in its delta's text. */
function learnDeltaTemplate(data: string, event: DeltaEvent): DeltaTemplate | undefined {
  if (event.type !== 'content_block_delta' || typeof event.delta?.type !== 'string') return undefined;
  const type = event.delta.type;
  const key = DELTA_TEXT.get(type);
  if (key === undefined || typeof event.delta[key] !== 'string') return undefined;
  const template = JsonTemplate.learn<DeltaEvent>(data, key, (parsed) => parsed.delta);
  if (!template) return undefined;
  const spanIndex = (type === 'text_delta' || type === 'thinking_delta') && typeof event.index === 'number' ? event.index : -1;
  return { template, spanIndex, thinking: type === 'thinking_delta' };
}
