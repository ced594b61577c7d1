import { describe, expect, it } from 'vitest';
import { readAnthropicMessage } from '../../../../core/upstreams/anthropic/read-response.ts';
import { loadJsonFixture } from '../../../helpers/streams.ts';

describe('readAnthropicMessage', () => {
  it('reads thinking, text and tool_use with usage (digest A7 example)', () => {
    expect(readAnthropicMessage(loadJsonFixture('anthropic/upstream-message.json'))).toEqual({
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      model: 'claude-sonnet-4-6',
      parts: [
        { type: 'reasoning', text: 'Need weather.', signature: { origin: 'anthropic', value: 'EqQBCg...' } },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 },
    });
  });

  it('keeps redacted thinking, server tool blocks (raw) and citations; reads thinking tokens', () => {
    expect(readAnthropicMessage(loadJsonFixture('anthropic/upstream-message-server-tools.json'))).toEqual({
      id: 'msg_05',
      model: 'claude-sonnet-4-6',
      parts: [
        { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' },
        { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'weather Paris' } } },
        {
          type: 'raw',
          origin: 'anthropic',
          block: {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_01',
            content: [{ type: 'web_search_result', url: 'https://example.com/paris', title: 'Paris weather', encrypted_content: 'EqgfCioIARgB', page_age: null }],
          },
        },
        {
          type: 'text',
          text: 'It is sunny.',
          citations: [{ type: 'web_search_result_location', cited_text: 'Sunny, 21 C', url: 'https://example.com/paris', title: 'Paris weather', encrypted_index: 'Eo8BCioIAhgB' }],
        },
      ],
      finish: 'stop',
      usage: { inputTokens: 120, outputTokens: 87, cacheReadTokens: 900, cacheWriteTokens: 30, reasoningTokens: 25 },
    });
  });

  it('reads a stop sequence, a signature-only thinking block (display omitted) and a Bedrock origin', () => {
    const body = {
      id: 'msg_bdrk_1',
      model: 'claude',
      content: [{ type: 'thinking', thinking: '', signature: 'SIG' }, { type: 'text', text: 'a' }, { type: 'container_upload', file_id: 'f1' }],
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      usage: { input_tokens: 4, output_tokens: 2 },
    };
    expect(readAnthropicMessage(body, { origin: 'bedrock' })).toEqual({
      id: 'msg_bdrk_1',
      model: 'claude',
      parts: [
        { type: 'reasoning', text: '', signature: { origin: 'bedrock', value: 'SIG' } },
        { type: 'text', text: 'a' },
        { type: 'raw', origin: 'bedrock', block: { type: 'container_upload', file_id: 'f1' } },
      ],
      finish: 'stop-sequence',
      stopSequence: '###',
      usage: { inputTokens: 4, outputTokens: 2 },
    });
  });

  it('refuses a body that is not an object', () => {
    expect(() => readAnthropicMessage('nope')).toThrow(expect.objectContaining({ kind: 'upstream' }));
  });
});
