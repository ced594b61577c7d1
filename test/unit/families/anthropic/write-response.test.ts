import { describe, expect, it } from 'vitest';
import { readAnthropicRequest } from '../../../../core/families/anthropic/read-request.ts';
import { MessagesRequest } from '../../../../core/families/anthropic/schema.ts';
import { writeAnthropicMessageId, writeAnthropicResponse, writeAnthropicToolId } from '../../../../core/families/anthropic/write-response.ts';
import type { ChatRequest, ChatResult } from '../../../../core/ir.ts';
import { writeAnthropicRequest } from '../../../../core/upstreams/anthropic/write-request.ts';
import { writeGeminiRequest } from '../../../../core/upstreams/gemini/write-request.ts';
import { parseWith } from '../../../../core/validate.ts';

describe('writeAnthropicResponse', () => {
  it('writes the exact message shape with the model the client asked for', () => {
    const result: ChatResult = {
      id: 'msg_01XF',
      model: 'claude-sonnet-4-6-20260101',
      parts: [
        { type: 'reasoning', text: 'Need weather.', signature: { origin: 'anthropic', value: 'EqQBCg' } },
        { type: 'text', text: 'Let me check.' },
        { type: 'tool-call', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 7, cacheWriteTokens: 3 },
    };
    expect(writeAnthropicResponse(result, { model: 'acme.claude-sonnet' })).toEqual({
      id: 'msg_01XF',
      type: 'message',
      role: 'assistant',
      model: 'acme.claude-sonnet',
      content: [
        { type: 'thinking', thinking: 'Need weather.', signature: 'EqQBCg' },
        { type: 'text', text: 'Let me check.', citations: null },
        { type: 'tool_use', id: 'toolu_01A', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: { input_tokens: 50, output_tokens: 42, cache_creation_input_tokens: 3, cache_read_input_tokens: 7 },
    });
  });

  it('translates another provider’s answer: ids, envelopes, redacted thinking, empty text, foreign raw blocks', () => {
    const warnings: string[] = [];
    const result: ChatResult = {
      id: 'chatcmpl-9',
      model: 'openai/gpt-oss',
      parts: [
        { type: 'reasoning', text: 'r', signature: { origin: 'openai', value: 'rabc' } },
        { type: 'reasoning', text: 'unsigned' },
        { type: 'reasoning', text: '', redacted: 'ENC' },
        { type: 'text', text: '' },
        { type: 'text', text: 'cited', citations: [{ type: 'char_location' }], signature: { origin: 'gemini', value: 'dGV4dA==' } },
        { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} } },
        { type: 'raw', origin: 'gemini', block: { type: 'executableCode' } },
        { type: 'tool-call', id: 'functions.Bash:12', name: 'Bash', input: {}, signature: { origin: 'gemini', value: 'c2ln' } },
        { type: 'tool-call', id: '', name: 'Read', input: { p: 1 } },
      ],
      finish: 'stop-sequence',
      stopSequence: '###',
      usage: { inputTokens: 1, outputTokens: 2 },
    };
    expect(writeAnthropicResponse(result, { model: 'acme.gpt-oss', warn: (w) => warnings.push(w) })).toEqual({
      id: 'msg_chatcmpl-9',
      type: 'message',
      role: 'assistant',
      model: 'acme.gpt-oss',
      content: [
        { type: 'thinking', thinking: 'r', signature: 'sy1.openai.rabc' },
        { type: 'thinking', thinking: 'unsigned', signature: '' },
        { type: 'redacted_thinking', data: 'ENC' },
        { type: 'text', text: 'cited', citations: [{ type: 'char_location' }] },
        // A Gemini text signature has no slot on a text block: it follows in an empty thinking block.
        { type: 'thinking', thinking: '', signature: 'sy1.gemini.dGV4dA==' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} },
        { type: 'thinking', thinking: '', signature: 'sy1.gemini.c2ln' },
        { type: 'tool_use', id: 'functions_Bash_12_1yu5qlr', name: 'Bash', input: {} },
        { type: 'tool_use', id: 'toolu_msg_chatcmpl-9_1', name: 'Read', input: { p: 1 } },
      ],
      stop_reason: 'stop_sequence',
      stop_sequence: '###',
      stop_details: null,
      container: null,
      usage: { input_tokens: 1, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    });
    expect(warnings).toEqual(['a gemini "executableCode" block has no Anthropic form and was left out of the response']);
  });

  it('round-trips through readAnthropicRequest when the client replays the turn', () => {
    const result: ChatResult = {
      id: 'gem',
      model: 'gemini',
      parts: [
        { type: 'reasoning', text: 'think', signature: { origin: 'gemini', value: 'A' } },
        { type: 'text', text: 'ok' },
        { type: 'tool-call', id: 'call:1', name: 'f', input: { x: 1 }, signature: { origin: 'gemini', value: 'B' } },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    const message = writeAnthropicResponse(result, { model: 'm' });
    const body = parseWith(MessagesRequest, { model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: message.content }] });
    expect(readAnthropicRequest(body, { stream: false }).messages[0]!.parts).toEqual([
      { type: 'reasoning', text: 'think', signature: { origin: 'gemini', value: 'A' } },
      { type: 'text', text: 'ok' },
      { type: 'tool-call', id: writeAnthropicToolId('call:1', ''), name: 'f', input: { x: 1 }, signature: { origin: 'gemini', value: 'B' } },
    ]);
  });

  it('carries Gemini text signatures after their text block (an empty signed text becomes the carrier alone)', () => {
    const gemini = (value: string) => ({ origin: 'gemini' as const, value });
    const result: ChatResult = {
      id: 'gem',
      model: 'gemini-2.5-flash',
      parts: [
        { type: 'reasoning', text: 'Thinking.' },
        { type: 'text', text: 'Of course!', signature: gemini('VDE=') },
        { type: 'text', text: ' More.' },
        { type: 'text', text: '', signature: gemini('VDI=') },
      ],
      finish: 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    expect(writeAnthropicResponse(result, { model: 'm' }).content).toEqual([
      { type: 'thinking', thinking: 'Thinking.', signature: '' },
      { type: 'text', text: 'Of course!', citations: null },
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.VDE=' },
      { type: 'text', text: ' More.', citations: null },
      { type: 'thinking', thinking: '', signature: 'sy1.gemini.VDI=' },
    ]);
  });

  it('a Gemini 3 turn-closing signature goes back to Gemini on a trailing empty part, and never to Claude', () => {
    const result: ChatResult = {
      id: 'gem3',
      model: 'gemini-3-pro-preview',
      parts: [{ type: 'text', text: 'Paris.', signature: { origin: 'gemini', value: 'RXBzQg==' } }],
      finish: 'stop',
      usage: { inputTokens: 1, outputTokens: 1 },
    };
    const message = writeAnthropicResponse(result, { model: 'm' });
    const body = parseWith(MessagesRequest, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'Capital?' }, { role: 'assistant', content: message.content }, { role: 'user', content: 'Thanks' }] });
    const req: ChatRequest = readAnthropicRequest(body, { stream: false });
    expect(req.messages[1]!.parts).toEqual([
      { type: 'text', text: 'Paris.' },
      { type: 'reasoning', text: '', signature: { origin: 'gemini', value: 'RXBzQg==' } },
    ]);
    const toGemini = JSON.parse(writeGeminiRequest({ ...req, model: 'gemini-3-pro-preview' }, { type: 'gemini', baseUrl: 'https://g.example/', apiKey: 'k', apiVersion: 'v1beta' }, () => {}).body as string);
    expect(toGemini.contents[1]).toEqual({ role: 'model', parts: [{ text: 'Paris.' }, { text: '', thoughtSignature: 'RXBzQg==' }] });
    const warnings: string[] = [];
    const toClaude = JSON.parse(writeAnthropicRequest({ ...req, model: 'claude-sonnet-4-5' }, { type: 'anthropic', baseUrl: 'https://a.example/', apiKey: 'k', version: '2023-06-01' }, (w) => warnings.push(w)).body as string);
    expect(toClaude.messages[1]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Paris.' }] });
    expect(warnings).toEqual(['reasoning from gemini dropped: only anthropic-signed thinking can be replayed']);
  });

  it('gives no stop_sequence unless the finish was a stop sequence', () => {
    const result: ChatResult = { id: 'msg_1', model: 'm', parts: [], finish: 'length', stopSequence: 'x', usage: { inputTokens: 0, outputTokens: 0 } };
    expect(writeAnthropicResponse(result, { model: 'm' })).toMatchObject({ content: [], stop_reason: 'max_tokens', stop_sequence: null });
  });
});

describe('ids', () => {
  it.each([
    ['msg_abc', 'msg_abc'],
    ['chatcmpl-1', 'msg_chatcmpl-1'],
    ['a/b:c', 'msg_a_b_c'],
    ['', 'msg_switchyard'],
  ])('message id %j → %j', (id, expected) => {
    expect(writeAnthropicMessageId(id)).toBe(expected);
  });

  it('keeps valid tool ids, and sanitises others deterministically and without collisions', () => {
    expect(writeAnthropicToolId('toolu_01-A', 'f')).toBe('toolu_01-A');
    const a = writeAnthropicToolId('Bash:12', 'f');
    expect(a).toMatch(/^Bash_12_[a-z0-9]+$/);
    expect(writeAnthropicToolId('Bash:12', 'g')).toBe(a);
    expect(writeAnthropicToolId('Bash.12', 'f')).not.toBe(a);
    expect(writeAnthropicToolId('', 'msg_1_0')).toBe('toolu_msg_1_0');
  });
});
