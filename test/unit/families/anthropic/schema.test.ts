import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { CountTokensRequest, MessagesRequest } from '../../../../core/families/anthropic/schema.ts';
import { isGatewayError } from '../../../../core/errors.ts';
import { parseWith } from '../../../../core/validate.ts';

function failure(schema: v.GenericSchema, input: unknown): { message: string; param?: string } {
  try {
    parseWith(schema, input);
  } catch (err) {
    if (isGatewayError(err)) return { message: err.message, param: err.opts.param };
    throw err;
  }
  throw new Error('expected a validation failure');
}

const base = { model: 'acme.claude', max_tokens: 64 };

describe('MessagesRequest', () => {
  it('keeps every key of a tool call\'s input and refuses an array for it', () => {
    // JSON.parse makes `__proto__` an own key, as a client's body does.
    const input = JSON.parse('{"constructor":"Foo","prototype":1,"__proto__":{"a":1},"ok":2}');
    const body = { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'rename', input }] }] };
    const out = parseWith(MessagesRequest, JSON.parse(JSON.stringify(body)));
    expect(JSON.stringify((out.messages[0]!.content as { input: unknown }[])[0]!.input)).toBe('{"constructor":"Foo","prototype":1,"__proto__":{"a":1},"ok":2}');
    const array = { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'rename', input: [1] }] }] };
    expect(failure(MessagesRequest, array)).toEqual({ message: 'messages.0.content.0.input: must be a JSON object', param: 'messages.0.content.0.input' });
  });

  it('refuses an array where an object of optional fields goes, naming the field (valibot read [] as {})', () => {
    const block = { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } };
    for (const [body, param] of [
      [{ ...base, messages: [{ role: 'user', content: 'Hi' }], metadata: [] }, 'metadata'],
      [{ ...base, messages: [{ role: 'user', content: 'Hi' }], output_config: [{ effort: 'low' }] }, 'output_config'],
      [{ ...base, messages: [{ role: 'user', content: [{ ...block, citations: [] }] }] }, 'messages.0.content.0.citations'],
    ] as const) {
      expect(failure(MessagesRequest, body)).toEqual({ message: `${param}: must be an object`, param });
    }
    expect(parseWith(MessagesRequest, { ...base, messages: [{ role: 'user', content: 'Hi' }], metadata: { user_id: 'u' } }).metadata).toEqual({ user_id: 'u' });
  });

  it('accepts a full request and keeps fields it does not name', () => {
    const input = {
      ...base,
      system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hm', signature: 'sig' },
            { type: 'redacted_thinking', data: 'xx' },
            { type: 'text', text: 'Calling.', citations: null },
            { type: 'tool_use', id: 'toolu_1', name: 'get', input: { a: 1 }, caller: { type: 'direct' } },
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
            { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'ok' }, { type: 'tool_reference', tool_name: 'x' }], is_error: false },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            { type: 'document', source: { type: 'url', url: 'https://x/y.pdf' }, title: 'Y', citations: { enabled: true } },
            { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'c' }] } },
            { type: 'search_result', source: 'https://s', title: 'S', content: [{ type: 'text', text: 'r' }] },
            { type: 'container_upload', file_id: 'file_1' },
          ],
        },
        { role: 'system', content: 'Now be formal.' },
      ],
      tools: [
        { name: 'get', description: 'Get', input_schema: { type: 'object', properties: {} }, cache_control: { type: 'ephemeral' } },
        { type: 'custom', name: 'put', input_schema: { type: 'object' }, strict: true },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
        { type: 'computer_toolset_20260801' },
      ],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' },
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
      stop_sequences: ['END'],
      stream: true,
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'u1' },
      service_tier: 'auto',
      container: { id: 'c1' },
      cache_control: { type: 'ephemeral' },
      context_management: { edits: [] },
    };
    const out = parseWith(MessagesRequest, input);
    expect(out).toEqual(input);
  });

  it('accepts a mid-conversation system message, between_tools thinking and a max_tokens of 0', () => {
    expect(() => parseWith(MessagesRequest, { ...base, max_tokens: 0, messages: [{ role: 'system', content: [{ type: 'text', text: 's' }] }], thinking: { type: 'between_tools' } })).not.toThrow();
  });

  it.each<[string, unknown, string, string]>([
    ['an unknown role', { ...base, messages: [{ role: 'bot', content: 'x' }] }, 'messages.0.role: must be "user" or "assistant" (or "system" for a mid-conversation system message)', 'messages.0.role'],
    ['a missing max_tokens', { model: 'm', messages: [] }, 'max_tokens: is required', 'max_tokens'],
    ['a fractional max_tokens', { ...base, max_tokens: 1.5, messages: [] }, 'max_tokens: must be an integer', 'max_tokens'],
    ['a negative max_tokens', { ...base, max_tokens: -1, messages: [] }, 'max_tokens: must be 0 or more', 'max_tokens'],
    ['a text block without text', { ...base, messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages.0.content.0.text: is required', 'messages.0.content.0.text'],
    ['a block without type', { ...base, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }, 'messages.0.content.0.type: must be a content block with a string "type"', 'messages.0.content.0.type'],
    ['content of the wrong kind', { ...base, messages: [{ role: 'user', content: 5 }] }, 'messages.0.content: must be a string or an array of content blocks', 'messages.0.content'],
    ['a bad image source', { ...base, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'zip' } }] }] }, 'messages.0.content.0.source.type: must be "base64", "url" or "file"', 'messages.0.content.0.source.type'],
    ['a tool_use without input', { ...base, messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b' }] }] }, 'messages.0.content.0.input: is required', 'messages.0.content.0.input'],
    ['a custom tool without input_schema', { ...base, messages: [], tools: [{ name: 'x' }] }, 'tools.0.input_schema: is required', 'tools.0.input_schema'],
    ['an input_schema that is not an object schema', { ...base, messages: [], tools: [{ name: 'x', input_schema: { type: 'string' } }] }, 'tools.0.input_schema.type: must be "object"', 'tools.0.input_schema.type'],
    ['an unknown tool_choice', { ...base, messages: [], tool_choice: { type: 'some' } }, 'tool_choice.type: must be "auto", "any", "tool" or "none"', 'tool_choice.type'],
    ['enabled thinking without a budget', { ...base, messages: [], thinking: { type: 'enabled' } }, 'thinking.budget_tokens: is required', 'thinking.budget_tokens'],
    ['an unknown effort', { ...base, messages: [], output_config: { effort: 'huge' } }, 'output_config.effort: must be "low", "medium", "high", "xhigh" or "max"', 'output_config.effort'],
    ['a bad cache ttl', { ...base, messages: [], cache_control: { type: 'ephemeral', ttl: '2h' } }, 'cache_control.ttl: must be "5m" or "1h"', 'cache_control.ttl'],
    ['an image in a system message', { ...base, messages: [{ role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'u' } }] }] }, 'messages.0.content.0.type: must be "text" (only text blocks are allowed here); messages.0.content.0.text: is required', 'messages.0.content.0.type'],
    ['a bad tool_result item', { ...base, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: [{ type: 'text', text: 1 }] }] }] }, 'messages.0.content.0.content.0.text: must be a string', 'messages.0.content.0.content.0.text'],
  ])('refuses %s, naming the field', (_name, input, message, param) => {
    expect(failure(MessagesRequest, input)).toEqual({ message, param });
  });
});

describe('CountTokensRequest', () => {
  it('does not need max_tokens', () => {
    const input = { model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [{ name: 'a', input_schema: { type: 'object' } }] };
    expect(parseWith(CountTokensRequest, input)).toEqual(input);
  });

  it('still validates messages', () => {
    expect(failure(CountTokensRequest, { model: 'm', messages: [{ role: 'user' }] })).toEqual({ message: 'messages.0.content: is required', param: 'messages.0.content' });
  });
});
