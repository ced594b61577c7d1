/** @see https://ai.google.dev/api/generate-content#FinishReason (and @google/genai 3.3's FinishReason enum, which lists newer values) */
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
  // Blocked by Google Cloud's Model Armor, by an escalation rule, or because the account is limited
  // for policy violations (@google/genai 3.3): a filter, as SAFETY is.
  MODEL_ARMOR: 'content-filter',
  ESCALATION: 'content-filter',
  PUP_LIMITED_DISABLED: 'content-filter',
  // Stopped at the per-request token limit with more to come (continuable with the returned token):
  // to a client of another family, a cut at the output limit.
  CONTINUATION: 'length',
  // The model tried to call a tool and failed: the turn ended on an error, not on an answer.
  MALFORMED_FUNCTION_CALL: 'error',
  UNEXPECTED_TOOL_CALL: 'error',
  TOO_MANY_TOOL_CALLS: 'error',
  // The request replayed a function call without its thought signature, or the model's answer
  // could not be formed: no answer, as above.
  MISSING_THOUGHT_SIGNATURE: 'error',
  MALFORMED_RESPONSE: 'error',
};

/**
 * Gemini has no tool-use finish reason: a turn that called functions ends with STOP, so the
 * caller says whether calls were seen. A missing reason (stream cut short of it) counts as STOP.
 */
export function mapGeminiFinishReason(reason: string | undefined, hasToolCalls: boolean): FinishReason {
  if (reason === undefined || reason === 'STOP') return hasToolCalls ? 'tool-calls' : 'stop';
  return BY_REASON[reason] ?? 'other';
}
