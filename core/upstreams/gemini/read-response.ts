/** @see https://ai.google.dev/api/generate-content#generatecontentresponse */
import type { ChatResult, FinishReason, Part, Signature } from '../../ir.ts';
import type { ReadRequest } from '../types.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { readGeminiUsage } from './read-usage.ts';
import { readGeminiWebSearch, webSearchCallBlock, webSearchResultBlock } from './read-web-search.ts';
import { synthesizeCallId } from './tool-call-id.ts';
import type { GeminiGenerateContentResponse, GeminiPart } from './wire-types.ts';

/**
 * A GenerateContentResponse → ChatResult (first candidate). Thought parts become reasoning, a
 * thoughtSignature stays on the part that carried it; a signature-only empty text part is kept
 * as an empty signed reasoning part (or joins the unsigned text right before it), so the turn
 * can be replayed with the signature where Gemini put it. Parts with no IR meaning are kept raw.
 * When the client asked for web search, Google Search grounding leads the answer as Anthropic's
 * server_tool_use and web_search_tool_result blocks, where Claude's web search puts them.
 */
export function readGeminiResponse(body: unknown, req: ReadRequest): ChatResult {
  const response = (typeof body === 'object' && body !== null ? body : {}) as GeminiGenerateContentResponse;
  const candidate = response.candidates?.[0];
  const parts = readGeminiParts(candidate?.content?.parts ?? [], response.responseId);
  const search = req.webSearch ? readGeminiWebSearch(candidate?.groundingMetadata, response.responseId) : undefined;
  if (search) parts.unshift({ type: 'raw', origin: 'anthropic', block: webSearchCallBlock(search, { query: search.query }) }, { type: 'raw', origin: 'anthropic', block: webSearchResultBlock(search) });
  const hasToolCalls = parts.some((p) => p.type === 'tool-call');
  let finish: FinishReason = mapGeminiFinishReason(candidate?.finishReason, hasToolCalls);
  if (!candidate) finish = response.promptFeedback?.blockReason ? 'content-filter' : 'other';
  return {
    id: response.responseId ?? '',
    model: response.modelVersion || req.model,
    parts,
    finish,
    usage: search ? Object.assign(readGeminiUsage(response.usageMetadata), { webSearchRequests: search.requests }) : readGeminiUsage(response.usageMetadata),
  };
}

export function readGeminiParts(wire: GeminiPart[], responseId: string | undefined): Part[] {
  const parts: Part[] = [];
  let calls = 0;
  for (const part of wire) {
    const signature: Signature | undefined = part.thoughtSignature ? { origin: 'gemini', value: part.thoughtSignature } : undefined;
    const sig = signature ? { signature } : {};
    if (part.functionCall) {
      const { id, name, args } = part.functionCall;
      parts.push({ type: 'tool-call', id: id || synthesizeCallId(responseId, calls), name, input: args ?? {}, ...sig });
      calls++;
    } else if (typeof part.text === 'string') {
      if (part.thought) parts.push({ type: 'reasoning', text: part.text, ...sig });
      else if (part.text) parts.push({ type: 'text', text: part.text, ...sig });
      else if (signature) {
        const last = parts[parts.length - 1];
        if (last?.type === 'text' && !last.signature) last.signature = signature;
        else parts.push({ type: 'reasoning', text: '', signature });
      }
    } else parts.push({ type: 'raw', origin: 'gemini', block: part });
  }
  return parts;
}

