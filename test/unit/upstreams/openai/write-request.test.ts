import { describe, expect, it } from 'vitest';
import { type GatewayError, isGatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, Message, ThinkingConfig } from '../../../../core/ir.ts';
import type { OpenAIProviderConfig } from '../../../../core/upstreams/openai/types.ts';
import { writeOpenAIRequest } from '../../../../core/upstreams/openai/write-request.ts';

const baseConfig: OpenAIProviderConfig = {
  type: 'openai',
  baseUrl: 'https://api.groq.com/openai/v1/',
  apiKey: 'gsk_test',
  reasoningField: 'reasoning_content',
  replayReasoning: false,
  maxTokensField: 'max_tokens',
  supportsFiles: false,
};

const baseReq: ChatRequest = { model: 'openai/gpt-oss-120b', system: [], messages: [], stream: false, source: { family: 'anthropic', extra: {} } };

function write(over: Partial<ChatRequest>, config: Partial<OpenAIProviderConfig> = {}) {
  const warnings: string[] = [];
  const wire = writeOpenAIRequest({ ...baseReq, ...over }, 'oss', { ...baseConfig, ...config }, (m) => warnings.push(m));
  return { wire, body: JSON.parse(wire.body as string), warnings };
}

function refusal(over: Partial<ChatRequest>, config: Partial<OpenAIProviderConfig> = {}): GatewayError {
  try {
    write(over, config);
  } catch (err) {
    if (isGatewayError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

describe('writeOpenAIRequest: envelope', () => {
  it('posts to {baseUrl}/chat/completions with bearer auth and provider headers', () => {
    const { wire } = write({ messages: [user('hi')] }, { headers: { 'X-Title': 'switchyard', Authorization: 'Bearer other' } });
    expect(wire.url).toBe('https://api.groq.com/openai/v1/chat/completions');
    expect(wire.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer other', 'x-title': 'switchyard' });
  });

  it('omits auth without a key and keeps a query string after the path', () => {
    const { wire } = write({ messages: [user('hi')] }, { apiKey: '', baseUrl: 'http://host:8000/v1?api-version=2024-10-21' });
    expect(wire.url).toBe('http://host:8000/v1/chat/completions?api-version=2024-10-21');
    expect(wire.headers).toEqual({ 'content-type': 'application/json' });
  });

  it('writes sampling parameters, the configured max-tokens field, user and stream options', () => {
    const { body, warnings } = write(
      {
        messages: [user('hi')],
        stream: true,
        maxTokens: 1000,
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        stop: ['END'],
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        userId: 'u-1',
        responseFormat: { type: 'json', schema: { type: 'object' }, name: 'answer' },
      },
      { maxTokensField: 'max_completion_tokens' },
    );
    expect(body).toEqual({
      model: 'openai/gpt-oss-120b',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 1000,
      temperature: 0.5,
      top_p: 0.9,
      stop: ['END'],
      seed: 7,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' } } },
      user: 'u-1',
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual(['top_k: dropped (not part of the OpenAI chat completions API)']);
    expect(write({ responseFormat: { type: 'json' } }).body.response_format).toEqual({ type: 'json_object' });
  });

  it('maps thinking to reasoning_effort per the documented table', () => {
    const effort = (thinking: ThinkingConfig) => write({ thinking }).body.reasoning_effort;
    expect(effort({ mode: 'disabled' })).toBeUndefined();
    expect(effort({ mode: 'enabled', budgetTokens: 1024 })).toBe('low');
    expect(effort({ mode: 'enabled', budgetTokens: 2048 })).toBe('low');
    expect(effort({ mode: 'enabled', budgetTokens: 2049 })).toBe('medium');
    expect(effort({ mode: 'enabled', budgetTokens: 8192 })).toBe('medium');
    expect(effort({ mode: 'enabled', budgetTokens: 8193 })).toBe('high');
    expect(effort({ mode: 'adaptive' })).toBeUndefined();
    expect(effort({ mode: 'adaptive', effort: 'minimal' })).toBe('low');
    expect(effort({ mode: 'adaptive', effort: 'medium' })).toBe('medium');
    expect(effort({ mode: 'adaptive', effort: 'xhigh' })).toBe('high');
    expect(effort({ mode: 'adaptive', effort: 'max' })).toBe('high');
    expect(write({ thinking: { mode: 'enabled', budgetTokens: 10000 } }).warnings).toEqual(['thinking: sent as reasoning_effort "high"']);
    expect(write({ thinking: { mode: 'adaptive', effort: 'high' } }).warnings).toEqual([]);
  });

  it('forwards an OpenAI-style client’s extra fields without overriding written ones; warns for other families', () => {
    const extra = { logprobs: true, model: 'not-this', chat_template_kwargs: { enable_thinking: false } };
    const openai = write({ messages: [user('hi')], source: { family: 'openai', extra } });
    expect(openai.body).toEqual({
      model: 'openai/gpt-oss-120b',
      messages: [{ role: 'user', content: 'hi' }],
      logprobs: true,
      chat_template_kwargs: { enable_thinking: false },
    });
    const other = write({ messages: [user('hi')], source: { family: 'anthropic', extra: { container: 'c1' } } });
    expect(other.body.container).toBeUndefined();
    expect(other.warnings).toEqual(['ignored by OpenAI-compatible host: container']);
  });
});

describe('writeOpenAIRequest: tools', () => {
  it('writes function tools, choice and parallel flag', () => {
    const { body } = write({
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } }, strict: true },
        { type: 'function', name: 'noop', inputSchema: {} },
      ],
      toolChoice: { type: 'tool', name: 'get_weather', disableParallel: true },
    });
    expect(body.tools).toEqual([
      { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: true } },
      { type: 'function', function: { name: 'noop', parameters: { type: 'object', properties: {} } } },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(body.parallel_tool_calls).toBe(false);
  });

  it('maps auto, any and none, and sends no choice without tools', () => {
    const tools = [{ type: 'function' as const, name: 'f', inputSchema: { type: 'object' } }];
    expect(write({ tools, toolChoice: { type: 'auto' } }).body.tool_choice).toBe('auto');
    expect(write({ tools, toolChoice: { type: 'any' } }).body.tool_choice).toBe('required');
    expect(write({ tools, toolChoice: { type: 'none' } }).body.tool_choice).toBe('none');
    const none = write({ toolChoice: { type: 'any', disableParallel: true } }).body;
    expect([none.tools, none.tool_choice, none.parallel_tool_calls]).toEqual([undefined, undefined, undefined]);
  });

  it('refuses provider tools, naming them', () => {
    const err = refusal({ tools: [{ type: 'provider', origin: 'anthropic', name: 'web_search', definition: { type: 'web_search_20250305' } }] });
    expect([err.kind, err.opts.param, err.message]).toEqual([
      'invalid_request',
      'tools.0',
      'tools: "web_search" is a server tool of anthropic and cannot be used with OpenAI-compatible host "oss"',
    ]);
  });
});
