/** @see https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse */
import type { ChatResult } from '../../ir.ts';
import { GEMINI_FINISH_REASON, type GeminiFinishReason } from './map-finish-reason.ts';
import type { GeminiPart } from './schema.ts';
import { writeGeminiGrounding, type GeminiGroundingMetadata } from './write-grounding.ts';
import { writeGeminiParts } from './write-parts.ts';
import { writeGeminiUsage, type GeminiUsageMetadata } from './write-usage.ts';

export interface GeminiCandidate {
  content: { parts: GeminiPart[]; role: 'model' };
  finishReason?: GeminiFinishReason;
  index: 0;
  /** A Claude web search, as Google Search grounding. */
  groundingMetadata?: GeminiGroundingMetadata;
}

export interface GeminiGenerateContentResponse {
  candidates: GeminiCandidate[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
}

export interface WriteGeminiOptions {
  /** The model name as the client asked for it (without `models/`). */
  model: string;
}

/**
 * ChatResult → GenerateContentResponse. The content always has at least one part: the SDK chat
 * records a turn with no parts as invalid and then drops the user message before it too.
 */
export function writeGeminiResponse(result: ChatResult, opts: WriteGeminiOptions): GeminiGenerateContentResponse {
  const parts = writeGeminiParts(result.parts);
  const grounding = writeGeminiGrounding(result.parts);
  return {
    candidates: [
      {
        content: { parts: parts.length > 0 ? parts : [{ text: '' }], role: 'model' },
        finishReason: GEMINI_FINISH_REASON[result.finish],
        index: 0,
        ...(grounding ? { groundingMetadata: grounding } : {}),
      },
    ],
    usageMetadata: writeGeminiUsage(result.usage),
    modelVersion: opts.model,
    responseId: result.id,
  };
}
