/** @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent */
import { GatewayError } from '../../errors.ts';
import { ReadView } from '../../http/json-template.ts';
import { JsonTextSpan } from '../../http/json-text-span.ts';
import { createSseByteReader, findDataValue, readEventEnd, type SseMessageReader } from '../../http/sse-read-bytes.ts';
import { stageStream } from '../../http/stage.ts';
import type { TemplateCache } from '../../http/template-cache.ts';
import { SpanTextDelta, type StreamEvent, type Usage } from '../../ir.ts';
import { GeminiChunkTemplate } from './chunk-template.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { readGeminiErrorDetail, type GeminiErrorContext } from './read-error.ts';
import { readGeminiUsage } from './read-usage.ts';
import { mergeGrounding, readGeminiWebSearch, webSearchCallBlock, webSearchResultBlock } from './read-web-search.ts';
import { synthesizeCallId } from './tool-call-id.ts';
import type { GeminiGenerateContentResponse, GeminiGroundingMetadata, GeminiPart, GeminiUsageMetadata } from './wire-types.ts';

export interface GeminiStreamOptions extends GeminiErrorContext {
  /** Reported when the chunks carry no modelVersion. */
  model: string;
  /** The templates learned from this upstream's earlier streams, by model: this stream's first guess, and where it leaves its own. */
  templates?: TemplateCache<GeminiChunkTemplate>;
  /** The client asked for Anthropic's web search: Google Search grounding ends the answer as its blocks. */
  webSearch?: boolean;
}

interface OpenBlock {
  index: number;
  kind: 'text' | 'reasoning';
  signed: boolean;
}

/**
 * Gemini SSE bytes → StreamEvents. Every `data:` line is a whole GenerateContentResponse holding
 * only new parts; parts become blocks with our own running index (consecutive text parts share
 * a block, every functionCall is a block of its own, pitfall 13). usageMetadata repeats with
 * running totals, so the last one wins, and the finish waits for the end of the stream. Most
 * text chunks are read from their bytes (see `takeEvent`).
 */
export function readGeminiStream(opts: GeminiStreamOptions): TransformStream<Uint8Array, StreamEvent> {
  return stageStream(createSseByteReader(createGeminiMessageReader(opts)));
}

/** Templates learned in a row without one chunk read through them, after which none are learned. */
const MAX_UNUSED_TEMPLATES = 3;

/**
 * Gemini SSE messages → StreamEvents as a synchronous stage. A text chunk that repeats the last
 * one learned but for its text and its usage counts is read from its bytes without JSON.parse
 * (see GeminiChunkTemplate): its text goes on undecoded, and the usage of the last such chunk is
 * parsed only when a later chunk or the end needs it.
 */
export function createGeminiMessageReader(opts: GeminiStreamOptions): SseMessageReader<StreamEvent> {
  let emit: (event: StreamEvent) => void = () => {};
  // An earlier stream's template reads this one's text chunks from the second on, when their
  // shape is the same: the first is parsed anyway, and nothing is learned from it.
  let template = opts.templates?.get(opts.model);
  let unusedTemplates = 0;
  const views = new ReadView();
  /**
   * Where the JSON after the text of the last chunk read through the template lies (from its
   * closing quote to its end), until its usage is read: the bytes and two offsets, not a view,
   * which would be one more object per chunk.
   */
  let tailBytes: Uint8Array | undefined;
  let tailFrom = 0;
  let tailTo = 0;
  let started = false;
  let ended = false;
  let sawCandidate = false;
  let next = 0;
  let calls = 0;
  let open: OpenBlock | undefined;
  let responseId: string | undefined;
  let usage: GeminiUsageMetadata | undefined;
  let finishReason: string | undefined;
  let blockReason: string | undefined;
  let grounding: GeminiGroundingMetadata | undefined;

  const close = () => {
    if (open) emit({ type: 'block-end', index: open.index });
    open = undefined;
  };
  const begin = (kind: OpenBlock['kind']): OpenBlock => {
    close();
    open = { index: next++, kind, signed: false };
    emit({ type: 'block-start', index: open.index, block: { type: kind } });
    return open;
  };
  /** The open block of this kind, unless a second signature would have to share it. */
  const continueOr = (kind: OpenBlock['kind'], signature: string | undefined): OpenBlock =>
    open?.kind === kind && !(signature && open.signed) ? open : begin(kind);
  const sign = (block: OpenBlock, value: string) => {
    block.signed = true;
    emit({ type: 'signature', index: block.index, signature: { origin: 'gemini', value } });
  };
  const fail = (error: GatewayError) => {
    close();
    emit({ type: 'error', error });
    ended = true;
  };

  const readPart = (part: GeminiPart) => {
    const signature = part.thoughtSignature;
    if (part.functionCall) {
      close();
      const { id, name, args } = part.functionCall;
      const index = next++;
      const callId = id || synthesizeCallId(responseId, calls);
      emit({ type: 'block-start', index, block: { type: 'tool-call', id: callId, name, ...(signature ? { signature: { origin: 'gemini', value: signature } } : {}) } });
      emit({ type: 'tool-input-delta', index, json: JSON.stringify(args ?? {}) });
      emit({ type: 'block-end', index });
      calls++;
    } else if (typeof part.text === 'string' && (part.text || part.thought)) {
      const block = continueOr(part.thought ? 'reasoning' : 'text', signature);
      if (part.text) emit(block.kind === 'text' ? { type: 'text-delta', index: block.index, text: part.text } : { type: 'reasoning-delta', index: block.index, text: part.text });
      if (signature) sign(block, signature);
    } else if (typeof part.text === 'string') {
      // A signature-only empty part must not open an empty text block: it signs the text just
      // streamed, or travels in an empty reasoning block of its own.
      if (!signature) return;
      if (open?.kind === 'text' && !open.signed) return sign(open, signature);
      sign(begin('reasoning'), signature);
      close();
    } else {
      close();
      const index = next++;
      emit({ type: 'block-start', index, block: { type: 'raw', origin: 'gemini', block: part } });
      emit({ type: 'block-end', index });
    }
  };

  /** A text chunk read through the template: what `readPart` does with its one part. */
  const readSpan = (span: JsonTextSpan, thought: boolean) => {
    if (span.byteLength === 0) {
      // An empty text is no delta; an empty thought still opens (or continues) its block.
      if (thought) continueOr('reasoning', undefined);
      return;
    }
    const block = continueOr(thought ? 'reasoning' : 'text', undefined);
    emit(thought ? { type: 'reasoning-delta', index: block.index, text: span.text(), span } : new SpanTextDelta(block.index, span));
  };
  /** The usage of the last chunk read through the template, before anything reads on. */
  const settleTail = () => {
    if (!tailBytes) return;
    const chunk = template!.readTail(tailBytes, tailFrom, tailTo);
    tailBytes = undefined;
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
  };

  const readChunk = (chunk: GeminiGenerateContentResponse) => {
    if (chunk.error) return fail(readGeminiErrorDetail(chunk.error, opts));
    if (!started) {
      started = true;
      responseId = chunk.responseId;
      emit({ type: 'start', id: responseId ?? '', model: chunk.modelVersion || opts.model, ...startUsage(chunk.usageMetadata) });
    }
    if (chunk.usageMetadata) usage = chunk.usageMetadata;
    if (chunk.promptFeedback?.blockReason) blockReason = chunk.promptFeedback.blockReason;
    const candidate = chunk.candidates?.[0];
    if (!candidate) return;
    sawCandidate = true;
    for (const part of candidate.content?.parts ?? []) readPart(part);
    if (candidate.finishReason) finishReason = candidate.finishReason;
    if (opts.webSearch && candidate.groundingMetadata) grounding = mergeGrounding(grounding, candidate.groundingMetadata);
  };

  /**
   * The search, after the text it grounds: its metadata is complete only at the end (it may come
   * on any chunk, again with more on a later one), and the text has gone on meanwhile.
   */
  const emitSearch = (): number | undefined => {
    const search = readGeminiWebSearch(grounding, responseId);
    if (!search) return undefined;
    const call = next++;
    emit({ type: 'block-start', index: call, block: { type: 'raw', origin: 'anthropic', block: webSearchCallBlock(search, {}) } });
    emit({ type: 'tool-input-delta', index: call, json: JSON.stringify({ query: search.query }) });
    emit({ type: 'block-end', index: call });
    const result = next++;
    emit({ type: 'block-start', index: result, block: { type: 'raw', origin: 'anthropic', block: webSearchResultBlock(search) } });
    emit({ type: 'block-end', index: result });
    return search.requests;
  };

  return {
    takes: () => template !== undefined && started && !ended,
    takeEvent(bytes, from, limit, out) {
      const at = findDataValue(bytes, from, limit);
      const chunk = template!;
      const quote = at < 0 ? -1 : chunk.match(bytes, views.of(bytes), at, limit);
      const end = quote < 0 ? -1 : readEventEnd(bytes, chunk.end, limit);
      if (end < 0) return -1;
      emit = out;
      unusedTemplates = 0;
      tailBytes = bytes;
      tailFrom = quote;
      tailTo = chunk.end;
      readSpan(new JsonTextSpan(bytes, at + chunk.headLength, quote), chunk.thought);
      return end;
    },
    push(message, out) {
      emit = out;
      if (ended) return;
      let chunk: unknown;
      try {
        chunk = JSON.parse(message.data);
      } catch (err) {
        return fail(new GatewayError('upstream', `Upstream "${opts.provider}" sent a stream chunk that is not JSON`, { cause: err }));
      }
      // Running totals: a chunk with usage of its own (the last one has it) makes the pending
      // tail's usage moot, and its parse is saved.
      if ((chunk as GeminiGenerateContentResponse | null)?.usageMetadata) tailBytes = undefined;
      else settleTail();
      if (typeof chunk !== 'object' || chunk === null) return;
      const first = !started;
      readChunk(chunk as GeminiGenerateContentResponse);
      if (ended || !started || unusedTemplates >= MAX_UNUSED_TEMPLATES || (first && template)) return;
      const learned = GeminiChunkTemplate.learn(message.data, chunk as GeminiGenerateContentResponse);
      if (learned) {
        template = learned;
        unusedTemplates++;
        opts.templates?.set(opts.model, learned);
      }
    },
    end(out) {
      emit = out;
      if (ended) return;
      settleTail();
      if (!started) return fail(new GatewayError('upstream', `Upstream "${opts.provider}" ended the stream without sending anything`));
      close();
      const searches = emitSearch();
      const reason = blockReason && !sawCandidate ? 'content-filter' : mapGeminiFinishReason(finishReason, calls > 0);
      const total = readGeminiUsage(usage);
      if (searches !== undefined) total.webSearchRequests = searches;
      emit({ type: 'finish', reason, usage: total });
    },
  };
}

/** Input counts are known from the first chunk; output counts only at the end. */
function startUsage(meta: GeminiUsageMetadata | undefined): { usage?: Partial<Usage> } {
  if (meta?.promptTokenCount === undefined) return {};
  const { inputTokens, cacheReadTokens } = readGeminiUsage(meta);
  return { usage: { inputTokens, ...(cacheReadTokens !== undefined ? { cacheReadTokens } : {}) } };
}
