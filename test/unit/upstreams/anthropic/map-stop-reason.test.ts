import { describe, expect, it } from 'vitest';
import { mapAnthropicStopReason } from '../../../../core/upstreams/anthropic/map-stop-reason.ts';

describe('mapAnthropicStopReason', () => {
  it('maps every documented stop reason, unknown ones to other', () => {
    const reasons = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal', 'model_context_window_exceeded', 'brand_new', null];
    expect(reasons.map(mapAnthropicStopReason)).toEqual(['stop', 'length', 'stop-sequence', 'tool-calls', 'pause', 'refusal', 'context-exceeded', 'other', 'stop']);
  });
});
