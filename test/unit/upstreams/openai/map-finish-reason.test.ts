import { describe, expect, it } from 'vitest';
import { mapOpenAIFinishReason } from '../../../../core/upstreams/openai/map-finish-reason.ts';

describe('mapOpenAIFinishReason', () => {
  it('maps every documented value', () => {
    const input = ['stop', 'length', 'tool_calls', 'function_call', 'content_filter', 'error', 'eos', null, undefined];
    expect(input.map(mapOpenAIFinishReason)).toEqual(['stop', 'length', 'tool-calls', 'tool-calls', 'content-filter', 'error', 'other', 'stop', 'stop']);
  });
});
