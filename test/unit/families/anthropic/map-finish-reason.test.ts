import { describe, expect, it } from 'vitest';
import { mapAnthropicFinishReason } from '../../../../core/families/anthropic/map-finish-reason.ts';
import type { FinishReason } from '../../../../core/ir.ts';

describe('mapAnthropicFinishReason', () => {
  it.each<[FinishReason, string]>([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['stop-sequence', 'stop_sequence'],
    ['tool-calls', 'tool_use'],
    ['content-filter', 'refusal'],
    ['refusal', 'refusal'],
    ['pause', 'pause_turn'],
    ['context-exceeded', 'model_context_window_exceeded'],
    ['error', 'end_turn'],
    ['other', 'end_turn'],
  ])('%s → %s', (reason, expected) => {
    expect(mapAnthropicFinishReason(reason)).toBe(expected);
  });

  it('throws on a value outside the IR union instead of inventing one', () => {
    expect(() => mapAnthropicFinishReason('bogus' as FinishReason)).toThrow('unmapped finish reason bogus');
  });
});
