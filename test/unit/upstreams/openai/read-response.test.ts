import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../core/errors.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { mintReasoningSignature } from '../../../../core/signature.ts';
import { readOpenAIResponse } from '../../../../core/upstreams/openai/read-response.ts';
import { loadJsonFixture } from '../../../helpers/streams.ts';

const req: ChatRequest = { model: 'requested-model', system: [], messages: [], stream: false, source: { family: 'anthropic', extra: {} } };
const read = (body: unknown) => readOpenAIResponse(body, req, 'oss');

describe('readOpenAIResponse', () => {
  it('reads text and usage', () => {
    expect(read(loadJsonFixture('openai/text.json'))).toEqual({
      id: 'chatcmpl-abc123',
      model: 'gpt-oss-120b',
      parts: [{ type: 'text', text: 'Hello! How can I help?' }],
      finish: 'stop',
      usage: { inputTokens: 10, outputTokens: 7, cacheReadTokens: 0, reasoningTokens: 0 },
    });
  });

  it('reads tool calls: parsed arguments, empty → {}, invalid JSON kept as _raw; cached tokens split out', () => {
    expect(read(loadJsonFixture('openai/tool-calls.json'))).toEqual({
      id: 'chatcmpl-tc1',
      model: 'gpt-4.1',
      parts: [
        { type: 'tool-call', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
        { type: 'tool-call', id: 'call_2', name: 'get_time', input: {} },
        { type: 'tool-call', id: 'call_3', name: 'broken', input: { _raw: '{"a":' } },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 16, outputTokens: 40, cacheReadTokens: 64, reasoningTokens: 0 },
    });
  });

  it('reads DeepSeek reasoning_content into a signed reasoning part before the text', () => {
    const reasoning = 'Compare 9.11 and 9.9: 0.11 < 0.9.';
    expect(read(loadJsonFixture('openai/reasoning.json'))).toEqual({
      id: '7c4e9e1a-0d9b-4e55-9b39-4a0a0e3c1f11',
      model: 'deepseek-reasoner',
      parts: [
        { type: 'reasoning', text: reasoning, signature: mintReasoningSignature(reasoning) },
        { type: 'text', text: '9.11 is smaller than 9.9.' },
      ],
      finish: 'stop',
      usage: { inputTokens: 20, outputTokens: 60, cacheReadTokens: 0, reasoningTokens: 45 },
    });
  });

  it('prefers reasoning_content, then reasoning, then a leading <think> in content', () => {
    const msg = (message: Record<string, unknown>) => read({ choices: [{ message, finish_reason: 'stop' }] }).parts;
    expect(msg({ content: 'a', reasoning_content: 'rc', reasoning: 'r' })[0]).toMatchObject({ type: 'reasoning', text: 'rc' });
    expect(msg({ content: 'a', reasoning_content: null, reasoning: 'r' })[0]).toMatchObject({ type: 'reasoning', text: 'r' });
    expect(msg({ content: '<think>\nhmm\n</think>\n\nAnswer' })).toEqual([
      { type: 'reasoning', text: '\nhmm\n', signature: mintReasoningSignature('\nhmm\n') },
      { type: 'text', text: 'Answer' },
    ]);
    // A tag that is not at the start is the answer's own text.
    expect(msg({ content: 'Use <think>tags</think>' })).toEqual([{ type: 'text', text: 'Use <think>tags</think>' }]);
    // Reasoning from a field leaves <think> in content alone.
    expect(msg({ content: '<think>x</think>y', reasoning: 'r' })[1]).toEqual({ type: 'text', text: '<think>x</think>y' });
  });

  it('is tolerant of missing fields and maps finish reasons', () => {
    expect(read({})).toEqual({ id: '', model: 'requested-model', parts: [], finish: 'stop', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(read({ choices: [{ message: { content: '' }, finish_reason: 'length' }] }).finish).toBe('length');
    expect(read({ choices: [{ message: { content: 'x' }, finish_reason: 'content_filter' }] }).finish).toBe('content-filter');
    expect(read({ choices: [{ message: { content: null, refusal: 'I cannot help.' }, finish_reason: 'stop' }] })).toMatchObject({
      parts: [{ type: 'text', text: 'I cannot help.' }],
      finish: 'refusal',
    });
  });

  it('throws the mapped error when a host answers 200 with an error body', () => {
    let caught: unknown;
    try {
      read({ error: { message: 'Provider returned error', code: 502 } });
    } catch (err) {
      caught = err;
    }
    expect(isGatewayError(caught) && [caught.kind, caught.status, caught.message]).toEqual(['upstream', 502, 'Upstream oss: Provider returned error']);
  });
});
