/** @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming */
import { GatewayError, isGatewayError } from '../../errors.ts';
import { emptyUsage, type FinishReason, type StreamEvent, type Usage } from '../../ir.ts';
import type { ReadRequest } from '../types.ts';
import { type JsonTemplate, ReadView } from '../../http/json-template.ts';
import type { SseMessage } from '../../http/sse-read.ts';
import { createSseByteReader, readEventEnd, readTemplateData, type SseMessageReader } from '../../http/sse-read-bytes.ts';
import { stageStream } from '../../http/stage.ts';
import type { TemplateCache } from '../../http/template-cache.ts';
import { type ChunkTemplate, learnChunkTemplate } from './chunk-template.ts';
import { mapOpenAIFinishReason } from './map-finish-reason.ts';
import { readOpenAIErrorBody } from './read-error.ts';
import { readThinkTags } from './read-think-tags.ts';
import { readOpenAIUsage } from './read-usage.ts';
import { createStreamBlocks } from './stream-blocks.ts';
import { createStreamToolCalls } from './stream-tool-calls.ts';
import type { OpenAIChatCompletion, OpenAIMessageFields } from './types.ts';

/**
 * Response bytes → StreamEvents: SSE framing, then the chunk state machine, which reads most text
 * chunks from their bytes (see `takeEvent`).
 */
export function readOpenAIStream(req: ReadRequest, name: string, templates?: TemplateCache<ChunkTemplate>): TransformStream<Uint8Array, StreamEvent> {
  return stageStream(createSseByteReader(createOpenAIChunkReader(req, name, templates)));
}

/**
 * chat.completion.chunk messages → StreamEvents, as a synchronous stage that stops (see Stage)
 * after an upstream error. Usage arrives after `finish_reason` (in a `choices: []` chunk when
 * `stream_options.include_usage` is set), so `finish` waits for that chunk or `[DONE]`. A stream
 * that ends without `finish_reason` still finishes, as `stop`. `templates` holds the chunk templates
 * this host's earlier streams learned, by model: this stream starts with its model's.
 */
export function createOpenAIChunkReader(req: ReadRequest, name: string, templates?: TemplateCache<ChunkTemplate>): SseMessageReader<StreamEvent> {
  let sink: (event: StreamEvent) => void = () => {};
  const emit = (event: StreamEvent) => sink(event);
  const blocks = createStreamBlocks(emit);
  let streamId = '';
  // Hosts without ids (Gemini's OpenAI endpoint) often send no stream id either: the stem must
  // still differ per answer, or every turn's first call would share one id.
  const tools = createStreamToolCalls(blocks, (n) => `call_${streamId.replace(/[^A-Za-z0-9_-]/g, '') || randomStem()}_${n}`, name);
  const think = readThinkTags();
  let started = false;
  let done = false;
  let finish: FinishReason | undefined;
  let refused = false;
  let reasoningField = false;
  let called = false;
  let usage: Usage | undefined;

  const closeBlocks = () => {
    for (const piece of think.end()) blocks.append(piece.kind, piece.text);
    tools.finish();
  };

  const end = () => {
    closeBlocks();
    const reason = finish ?? 'stop';
    // Gemini's OpenAI-compatible endpoint ends tool-call turns with "stop"; a client told the turn
    // simply ended would never run the tools (pitfall 15).
    const final = reason === 'stop' && called ? 'tool-calls' : reason === 'stop' && refused ? 'refusal' : reason;
    emit({ type: 'finish', reason: final, usage: usage ?? emptyUsage() });
    done = true;
  };

  const readDelta = (delta: OpenAIMessageFields) => {
    const reasoning = firstText(delta.reasoning_content, delta.reasoning);
    if (reasoning) {
      reasoningField = true;
      blocks.append('reasoning', reasoning);
    }
    if (typeof delta.content === 'string' && delta.content) {
      // Hosts that parse reasoning into its own field never also inline <think> tags.
      if (reasoningField || think.passing()) blocks.append('text', delta.content);
      else for (const piece of think.push(delta.content)) blocks.append(piece.kind, piece.text);
    }
    if (typeof delta.refusal === 'string' && delta.refusal) {
      refused = true;
      blocks.append('text', delta.refusal);
    }
    for (const fragment of delta.tool_calls ?? []) {
      called = true;
      tools.push(fragment);
    }
  };

  // Chunks that repeat the last text-only chunk but for its text (and a few values that vary, see
  // learnChunkTemplate) are read without JSON.parse (see JsonTemplate). Hosts whose chunks all
  // differ elsewhere get a few templates that never match, then no more.
  const cached = templates?.get(req.model);
  let template: JsonTemplate<OpenAIChatCompletion> | undefined = cached?.template;
  let unusedTemplates = 0;
  const views = new ReadView();
  /** The template's varying string is `content` (else reasoning). */
  let contentTemplate = cached?.field === 'content';

  const read = (message: SseMessage) => {
    const data = message.data;
    const filled = template && message.event !== 'error' ? template.fill(data) : undefined;
    if (filled) {
      unusedTemplates = 0;
      readChunk(filled);
      return;
    }
    if (data.trim() === '[DONE]') {
      if (!started) throw new GatewayError('upstream', `Upstream ${name}: stream ended before any data`);
      end();
      return;
    }
    let chunk: OpenAIChatCompletion;
    try {
      chunk = JSON.parse(data) as OpenAIChatCompletion;
    } catch (err) {
      throw new GatewayError('upstream', `Upstream ${name}: stream data is not JSON`, { cause: err });
    }
    if (typeof chunk !== 'object' || chunk === null) return;
    if (message.event === 'error' || chunk.error !== undefined) throw readOpenAIErrorBody(chunk, name);
    readChunk(chunk);
    if (started && unusedTemplates < MAX_UNUSED_TEMPLATES) {
      const learned = learnChunkTemplate(data, chunk);
      if (learned) {
        template = learned.template;
        contentTemplate = learned.field === 'content';
        unusedTemplates++;
        templates?.set(req.model, learned);
      }
    }
  };

  const readChunk = (chunk: OpenAIChatCompletion) => {
    if (!started) {
      started = true;
      streamId = typeof chunk.id === 'string' ? chunk.id : '';
      emit({ type: 'start', id: streamId, model: typeof chunk.model === 'string' && chunk.model ? chunk.model : req.model });
    }
    const chunkUsage = chunk.usage ?? chunk.x_groq?.usage;
    if (chunkUsage) usage = readOpenAIUsage(chunkUsage);
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (choice) {
      readDelta(choice.delta ?? {});
      if (choice.finish_reason) {
        finish = mapOpenAIFinishReason(choice.finish_reason);
        closeBlocks();
      }
    } else if (finish && chunkUsage) {
      end();
    }
  };

  /**
   * An event that is only `data:` and a chunk of the template whose text (content or reasoning)
   * JSON.stringify writes back byte for byte (see JsonTemplate.matchBytes) is read as such a chunk
   * is, but its text stays in the upstream's bytes (a JsonTextSpan) for a writer to copy.
   */
  const takeEvent = (bytes: Uint8Array, from: number, limit: number, emit: (event: StreamEvent) => void): number => {
    if (!template) return -1;
    const span = readTemplateData(template, views, bytes, from, limit);
    if (!span) return -1;
    unusedTemplates = 0;
    sink = emit;
    // An empty text is no delta, as in `readDelta`.
    if (span.byteLength > 0) {
      if (!contentTemplate) reasoningField = true;
      blocks.appendSpan(contentTemplate ? 'text' : 'reasoning', span);
    }
    return readEventEnd(bytes, template.end, limit);
  };

  // `stopped` is a data property, never a getter: see Stage.
  const stage = {
    stopped: false,
    takes(): boolean {
      // Content that may still open or close a <think> block goes through `think`, as text. A
      // chunk read from its bytes is only a delta: the stream's start comes from a parse.
      return started && !done && template !== undefined && (!contentTemplate || reasoningField || think.passing());
    },
    takeEvent,
    push(message: SseMessage, out: (event: StreamEvent) => void) {
      sink = out;
      if (done) return;
      try {
        read(message);
      } catch (err) {
        if (!isGatewayError(err)) throw err;
        emit({ type: 'error', error: err });
        done = true;
        stage.stopped = true;
      }
    },
    end(out: (event: StreamEvent) => void) {
      sink = out;
      if (done) return;
      if (!started) emit({ type: 'error', error: new GatewayError('upstream', `Upstream ${name}: stream ended before any data`) });
      else end();
    },
  };
  return stage;
}

/** Templates learned in a row without one chunk read through them, after which none are learned. */
const MAX_UNUSED_TEMPLATES = 3;

function randomStem(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function firstText(...values: Array<string | null | undefined>): string {
  for (const value of values) if (typeof value === 'string' && value) return value;
  return '';
}
