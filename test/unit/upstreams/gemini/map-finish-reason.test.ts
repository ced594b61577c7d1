import { describe, expect, it } from 'vitest';
import { mapGeminiFinishReason } from '../../../../core/upstreams/gemini/map-finish-reason.ts';

describe('mapGeminiFinishReason', () => {
  it('maps every documented reason', () => {
    const reasons = ['STOP', 'MAX_TOKENS', 'SAFETY', 'RECITATION', 'LANGUAGE', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY',
      'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS',
      'MODEL_ARMOR', 'ESCALATION', 'PUP_LIMITED_DISABLED', 'CONTINUATION', 'MISSING_THOUGHT_SIGNATURE', 'MALFORMED_RESPONSE',
      'OTHER', 'IMAGE_OTHER', 'NO_IMAGE', 'FINISH_REASON_UNSPECIFIED', 'SOMETHING_NEW'];
    expect(Object.fromEntries(reasons.map((r) => [r, mapGeminiFinishReason(r, false)]))).toEqual({
      STOP: 'stop',
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
      MALFORMED_FUNCTION_CALL: 'error',
      UNEXPECTED_TOOL_CALL: 'error',
      TOO_MANY_TOOL_CALLS: 'error',
      MODEL_ARMOR: 'content-filter',
      ESCALATION: 'content-filter',
      PUP_LIMITED_DISABLED: 'content-filter',
      CONTINUATION: 'length',
      MISSING_THOUGHT_SIGNATURE: 'error',
      MALFORMED_RESPONSE: 'error',
      OTHER: 'other',
      IMAGE_OTHER: 'other',
      NO_IMAGE: 'other',
      FINISH_REASON_UNSPECIFIED: 'other',
      SOMETHING_NEW: 'other',
    });
  });

  it('turns STOP (or no reason) into tool-calls when the turn called functions', () => {
    expect([mapGeminiFinishReason('STOP', true), mapGeminiFinishReason(undefined, true), mapGeminiFinishReason(undefined, false), mapGeminiFinishReason('MAX_TOKENS', true)]).toEqual([
      'tool-calls',
      'tool-calls',
      'stop',
      'length',
    ]);
  });
});
