import { describe, expect, it } from 'vitest';
import { readBedrockConverseResponse } from '../../../../core/upstreams/bedrock/read-response.ts';
import { loadJsonFixture } from '../../../helpers/streams.ts';

const ID = /^msg_bdrk_[0-9a-f]{24}$/;

describe('readBedrockConverseResponse', () => {
  it('reads reasoning, text and tool use with usage and stop reason', () => {
    const result = readBedrockConverseResponse(loadJsonFixture('bedrock/converse-tool-use.json'), 'us.anthropic.claude-x');
    expect(result.id).toMatch(ID);
    expect({ ...result, id: 'x' }).toEqual({
      id: 'x',
      model: 'us.anthropic.claude-x',
      parts: [
        { type: 'reasoning', text: 'hmm', signature: { origin: 'bedrock', value: 'SIG' } },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 5, outputTokens: 60, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('keeps gpt-oss reasoning unsigned, redacted reasoning, a matched stop sequence and unknown blocks', () => {
    const result = readBedrockConverseResponse({
      output: { message: { role: 'assistant', content: [
        { reasoningContent: { reasoningText: { text: 'The user wants a number.' } } },
        { reasoningContent: { redactedContent: 'ZW5jcnlwdGVk' } },
        { text: '42' },
        { citationsContent: { citations: [] } },
      ] } },
      stopReason: 'stop_sequence',
      usage: { inputTokens: 12, outputTokens: 3, totalTokens: 15 },
      additionalModelResponseFields: { stop_sequence: 'END' },
    }, 'openai.gpt-oss-120b-1:0');
    expect(result.parts).toEqual([
      { type: 'reasoning', text: 'The user wants a number.' },
      { type: 'reasoning', text: '', redacted: 'ZW5jcnlwdGVk' },
      { type: 'text', text: '42' },
      { type: 'raw', origin: 'bedrock', block: { citationsContent: { citations: [] } } },
    ]);
    expect(result.finish).toBe('stop-sequence');
    expect(result.stopSequence).toBe('END');
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 3 });
  });

  it('tolerates a missing output and refuses a body that is not an object', () => {
    expect(readBedrockConverseResponse({ stopReason: 'max_tokens' }, 'm')).toMatchObject({ parts: [], finish: 'length', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(() => readBedrockConverseResponse('nope', 'm')).toThrow('Bedrock sent a Converse response that is not an object');
  });
});
