/** @see https://ai.google.dev/api/generate-content#FinishReason */
import type { FinishReason } from '../../ir.ts';

export type GeminiFinishReason = 'STOP' | 'MAX_TOKENS' | 'SAFETY' | 'OTHER';

/**
 * IR finish reasons → Gemini's. Gemini has no tool-use reason (a turn with function calls ends
 * with STOP) and no stop-sequence one; refusals count as SAFETY, a pause as a normal stop.
 */
export const GEMINI_FINISH_REASON: Record<FinishReason, GeminiFinishReason> = {
  stop: 'STOP',
  'stop-sequence': 'STOP',
  'tool-calls': 'STOP',
  pause: 'STOP',
  length: 'MAX_TOKENS',
  'context-exceeded': 'MAX_TOKENS',
  'content-filter': 'SAFETY',
  refusal: 'SAFETY',
  error: 'OTHER',
  other: 'OTHER',
};
