/** @see https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent */
import { GatewayError } from '../../errors.ts';
import type { FinishReason, Signature, StreamEvent, Usage } from '../../ir.ts';
import type { SseMessage } from '../../http/sse-read.ts';
import { type Stage, stageStream } from '../../http/stage.ts';
import { writeSignature } from '../../signature.ts';
import { GEMINI_FINISH_REASON } from './map-finish-reason.ts';
import type { GeminiPart } from './schema.ts';
import { writeGeminiError } from './write-error.ts';
import { GroundingWriter } from './write-grounding.ts';
import type { GeminiGenerateContentResponse } from './write-response.ts';
import { GeminiTextFrame, writeTextFrameAfter } from './write-text-frame.ts';
import { writeThoughtSignature } from './thought-signature.ts';
import { writeGeminiUsage } from './write-usage.ts';

export interface WriteGeminiStreamOptions {
  /** The model name as the client asked for it (without `models/`). */
  model: string;
}

type OpenBlock =
  | { kind: 'text' }
  | { kind: 'reasoning'; text: string; signature?: Signature; redacted?: string }
  | { kind: 'tool'; id: string; name: string; signature?: Signature; json: string }
  /** A Claude web search's server_tool_use: its query arrives as input JSON. */
  | { kind: 'search'; json: string; input: unknown }
  | { kind: 'other' };

/**
 * StreamEvents → Gemini chunks, one `data:` message each, no event names and no keep-alives
 * (either breaks the SDK's parser). Every chunk has at least one part; a function call goes out
 * whole when its block ends; the last chunk carries `finishReason`, usage and a part (the SDK chat
 * drops the whole turn otherwise). A reasoning signature waits for the next non-thought part, as
 * in writeGeminiParts. A Claude web search ends the stream as Google Search grounding on the last
 * chunk (its queries and pages; a stream's citations are not read, so no supports). An error ends
 * the stream with Gemini's error object.
 */
export function writeGeminiStream(opts: WriteGeminiStreamOptions): TransformStream<StreamEvent, SseMessage> {
  return stageStream(createGeminiStreamWriter(opts));
}

/** `writeGeminiStream` as a synchronous stage, to fuse with the reader before it. */
export function createGeminiStreamWriter(opts: WriteGeminiStreamOptions): Stage<StreamEvent, SseMessage> {
  let responseId = '';
  let ended = false;
  let pending: string | undefined;
  const blocks = new Map<number, OpenBlock>();
  let grounding: GroundingWriter | undefined;

  const modelJson = JSON.stringify(opts.model);
  let tail = '';
  /** What a text frame writes after its text (see GeminiTextFrame), made with `tail`. */
  let frameAfter: { after: string; afterBytes: Uint8Array } | undefined;
  /** The same for a thought part. */
  let thoughtAfter: { after: string; afterBytes: Uint8Array } | undefined;
  /** The common chunk (one unsigned text part) written as text: the same bytes as `chunk`, without building the object. */
  const textChunk = (text: string): SseMessage => ({
    data: `{"candidates":[{"content":{"parts":[{"text":${JSON.stringify(text)}}],"role":"model"},"index":0}]${tail}`,
  });
  const chunk = (parts: GeminiPart[], finish?: { reason: FinishReason; usage: Usage }): SseMessage => {
    const searched = finish && grounding?.write();
    const body: GeminiGenerateContentResponse = {
      candidates: [{ content: { parts, role: 'model' }, ...(finish && { finishReason: GEMINI_FINISH_REASON[finish.reason] }), index: 0, ...(searched && { groundingMetadata: searched }) }],
      ...(finish && { usageMetadata: writeGeminiUsage(finish.usage) }),
      modelVersion: opts.model,
      responseId,
    };
    return { data: JSON.stringify(body) };
  };
  /** `part` with the waiting signature on it, or after it when `part` is signed already. */
  const take = (part: GeminiPart, own?: string): GeminiPart[] => {
    const waiting = pending;
    pending = undefined;
    if (waiting && !own) return [signedWith(part, waiting)];
    const signed = own ? signedWith(part, own) : part;
    return waiting ? [{ text: '', thoughtSignature: waiting }, signed] : [signed];
  };

  return {
    push(event, out) {
      if (ended) return;
      switch (event.type) {
        case 'start':
          responseId = event.id;
          tail = `,"modelVersion":${modelJson},"responseId":${JSON.stringify(responseId)}}`;
          frameAfter = undefined;
          thoughtAfter = undefined;
          break;
        case 'block-start': {
          const b = event.block;
          if (b.type === 'text') blocks.set(event.index, { kind: 'text' });
          else if (b.type === 'tool-call') blocks.set(event.index, { kind: 'tool', id: b.id, name: b.name, signature: b.signature, json: '' });
          else if (b.type === 'reasoning') {
            if (pending) out(chunk(take({ text: '' })));
            blocks.set(event.index, { kind: 'reasoning', text: '', redacted: b.redacted });
          } else if (b.origin === 'anthropic' && b.block.type === 'server_tool_use' && b.block.name === 'web_search') {
            grounding ??= new GroundingWriter();
            blocks.set(event.index, { kind: 'search', json: '', input: b.block.input });
          } else {
            blocks.set(event.index, { kind: 'other' });
            if (b.origin === 'gemini') out(chunk(take({ ...b.block })));
            else if (b.origin === 'anthropic' && b.block.type === 'web_search_tool_result') (grounding ??= new GroundingWriter()).addBlock(b.block);
          }
          break;
        }
        case 'text-delta': {
          // A span is never empty; its text is not decoded for the common chunk (see GeminiTextFrame).
          const { span } = event;
          if (!span && !event.text) break;
          if (pending || !tail) out(chunk(take({ text: event.text })));
          else if (span) {
            frameAfter ??= writeTextFrameAfter(tail);
            out(new GeminiTextFrame(span, frameAfter.after, frameAfter.afterBytes));
          } else out(textChunk(event.text));
          break;
        }
        case 'reasoning-delta': {
          const block = blocks.get(event.index);
          if (block?.kind === 'reasoning') block.text += event.text;
          if (!event.text) break;
          if (event.span && tail) {
            thoughtAfter ??= writeTextFrameAfter(tail, true);
            out(new GeminiTextFrame(event.span, thoughtAfter.after, thoughtAfter.afterBytes));
          } else out(chunk([{ text: event.text, thought: true }]));
          break;
        }
        case 'signature': {
          const block = blocks.get(event.index);
          if (block?.kind === 'reasoning' || block?.kind === 'tool') block.signature = event.signature;
          // A signed text block (Gemini's own signatures) gets the empty carrier part Gemini uses.
          else if (block?.kind === 'text') out(chunk(take({ text: '' }, writeSignature(event.signature, 'gemini'))));
          break;
        }
        case 'tool-input-delta': {
          const block = blocks.get(event.index);
          if (block?.kind === 'tool' || block?.kind === 'search') block.json += event.json;
          break;
        }
        case 'block-end': {
          const block = blocks.get(event.index);
          blocks.delete(event.index);
          if (block?.kind === 'reasoning') pending = writeThoughtSignature(block);
          else if (block?.kind === 'search') grounding!.addBlock({ type: 'server_tool_use', name: 'web_search', input: block.json ? parseArgs(block.json) : block.input });
          else if (block?.kind === 'tool') {
            const args = parseArgs(block.json);
            if (!args) {
              out(writeGeminiErrorFrame(new GatewayError('upstream', `The model sent arguments for "${block.name}" that are not a JSON object`)));
              ended = true;
              break;
            }
            const own = block.signature && writeSignature(block.signature, 'gemini');
            out(chunk(take({ functionCall: { id: block.id, name: block.name, args } }, own)));
          }
          break;
        }
        case 'usage':
          break;
        case 'finish':
          out(chunk(take({ text: '' }), event));
          ended = true;
          break;
        case 'error':
          out(writeGeminiErrorFrame(event.error));
          ended = true;
          break;
        default:
          event satisfies never;
      }
    },
    end(out) {
      if (!ended) out(writeGeminiErrorFrame(new GatewayError('upstream', 'The upstream stream ended before the answer was complete')));
    },
  };
}

/** Gemini's in-stream error: the same object as an error body, with a numeric `code` (the SDK needs it). */
export function writeGeminiErrorFrame(err: GatewayError): SseMessage {
  return { data: JSON.stringify(writeGeminiError(err).body) };
}

function parseArgs(json: string): Record<string, unknown> | undefined {
  if (!json.trim()) return {};
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** A copy of `part` carrying `signature`, copied then set (see test/unit/http/spread-literals.test.ts). */
function signedWith(part: GeminiPart, signature: string): GeminiPart {
  const signed = Object.assign({}, part);
  signed.thoughtSignature = signature;
  return signed;
}
