/** @see https://ai.google.dev/api/generate-content#FinishReason */
import type { FinishReason } from '../../ir.ts';

const BY_REASON: Record<string, FinishReason> = {
  MAX_TOKENS: 'length',
  SAFETY: 'content-filter',
  RECITATION: 'content-filter',
  LANGUAGE: 'content-filter',
  BLOCKLIST: 'content-filter',
  PROHIBITED_CONTENT: 'content-filter',
  SPII: 'content-filter',
  IMAGE_SAFETY: 'content-filter',
  IMAGE_PROHIBITED_CONTENT: 'content-filter',
  IMAGE_RECITATION: 'content-filter',
  // The model tried to call a tool and failed: the turn ended on an error, not on an answer.
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
};

/**
 * Gemini has no tool-use finish reason: a turn that called functions ends with STOP, so the
 * caller says whether calls were seen. A missing reason (stream cut short of it) counts as STOP.
 */
export function mapGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === undefined || reason === 'STOP') return hasToolCalls ? 'tool-calls' : 'stop';
  return BY_REASON[reason] ?? 'other';
}
