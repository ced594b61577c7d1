import { describe, expect, it } from 'vitest';
import { mapBedrockStopReason } from '../../../../core/upstreams/bedrock/map-stop-reason.ts';

describe('mapBedrockStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['tool_use', 'tool-calls'],
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop-sequence'],
    ['guardrail_intervened', 'content-filter'],
    ['content_filtered', 'content-filter'],
    ['model_context_window_exceeded', 'context-exceeded'],
    ['malformed_model_output', 'other'],
    ['malformed_tool_use', 'other'],
    ['something_new', 'other'],
    [undefined, 'stop'],
  ])('%s → %s', (reason, finish) => {
    expect(mapBedrockStopReason(reason)).toBe(finish);
  });
});
