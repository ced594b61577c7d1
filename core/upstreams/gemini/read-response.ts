/** @see https://ai.google.dev/api/generate-content#generatecontentresponse */
import type { ChatResult, FinishReason, Part, Signature } from '../../ir.ts';
import type { ReadRequest } from '../types.ts';
import { mapGeminiFinishReason } from './map-finish-reason.ts';
import { readGeminiUsage } from './read-usage.ts';
import { synthesizeCallId } from './tool-call-id.ts';
import type { GeminiGenerateContentResponse, GeminiPart } from './wire-types.ts';

/**
 * A GenerateContentResponse → ChatResult (first candidate). Thought parts become reasoning, a
 * thoughtSignature stays on the part that carried it; a signature-only empty text part is kept
 * as an empty signed reasoning part (or joins the unsigned text right before it), so the turn
 * can be replayed with the signature where Gemini put it. Parts with no IR meaning are kept raw.
 */
export function readGeminiResponse(body: unknown, req: ReadRequest): ChatResult {
  const response = (typeof body === 'object' && body !== null ? body : {}) as GeminiGenerateContentResponse;
  const candidate = response.candidates?.[0];
  const parts = readGeminiParts(candidate?.content?.parts ?? [], response.responseId);
  const hasToolCalls = parts.some((p) => p.type === 'tool-call');
  let finish: FinishReason = mapGeminiFinishReason(candidate?.finishReason, hasToolCalls);
  if (!candidate) finish = response.promptFeedback?.blockReason ? 'content-filter' : 'other';
  return {
    id: response.responseId ?? '',
    model: response.modelVersion || req.model,
    parts,
    finish,
    usage: readGeminiUsage(response.usageMetadata),
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

