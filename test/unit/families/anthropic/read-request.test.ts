import { describe, expect, it } from 'vitest';
import { readAnthropicRequest } from '../../../../core/families/anthropic/read-request.ts';
import { CountTokensRequest, MessagesRequest } from '../../../../core/families/anthropic/schema.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { parseWith } from '../../../../core/validate.ts';

function read(input: Record<string, unknown>, opts: { stream?: boolean; betas?: string[] } = {}) {
  const body = parseWith(MessagesRequest, { model: 'acme.claude', max_tokens: 100, ...input });
  const before = structuredClone(body);
  const warnings: string[] = [];
  const req = readAnthropicRequest(body, { stream: opts.stream ?? false, betas: opts.betas, warn: (w) => warnings.push(w) });
  expect(body).toEqual(before);
  return { req, warnings };
}

describe('readAnthropicRequest', () => {
  it('maps a full request onto the IR, keeping unmapped fields in source.extra', () => {
    const { req, warnings } = read(
      {
        system: [{ type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'Need a tool.', signature: 'EqQB' },
              { type: 'redacted_thinking', data: 'ENC' },
              { type: 'text', text: 'Checking.', citations: null },
              { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' }, caller: { type: 'direct' } },
            ],
          },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '21C' }, { type: 'image', source: { type: 'url', url: 'https://x/map.png' } }], is_error: true },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' }, cache_control: { type: 'ephemeral' } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBE' }, title: 'Report', context: 'Q3', citations: { enabled: true } },
              { type: 'document', source: { type: 'url', url: 'https://x/a.pdf' } },
              { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } },
              { type: 'document', source: { type: 'file', file_id: 'file_9' } },
              { type: 'image', source: { type: 'file', file_id: 'file_8' } },
              { type: 'text', text: 'See cited.', citations: [{ type: 'char_location', cited_text: 'x' }] },
            ],
          },
          { role: 'system', content: 'Answer in French.' },
        ],
        tools: [
          { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, strict: true, cache_control: { type: 'ephemeral' } },
          { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
          { type: 'computer_toolset_20260801' },
        ],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        thinking: { type: 'adaptive', display: 'omitted' },
        output_config: { effort: 'xhigh', format: { type: 'json_schema', schema: { type: 'object' } } },
        stop_sequences: ['END'],
        temperature: 0.3,
        top_p: 0.8,
        top_k: 5,
        metadata: { user_id: 'user-1' },
        service_tier: 'standard_only',
        container: 'cont_1',
        context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] },
        speed: 'fast',
      },
      { stream: true, betas: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'] },
    );
    expect(req).toEqual<ChatRequest>({
      model: 'acme.claude',
      system: [{ type: 'text', text: 'Be terse.', cache: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Need a tool.', signature: { origin: 'anthropic', value: 'EqQB' } },
            { type: 'reasoning', text: '', redacted: 'ENC' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool-call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          parts: [
            {
              type: 'tool-result',
              callId: 'toolu_1',
              name: 'get_weather',
              isError: true,
              content: [{ type: 'text', text: '21C' }, { type: 'image', source: { kind: 'url', url: 'https://x/map.png' } }],
            },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' }, cache: { type: 'ephemeral' } },
            { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBE' }, title: 'Report', context: 'Q3', citations: { enabled: true } },
            { type: 'document', source: { kind: 'url', url: 'https://x/a.pdf', mediaType: 'application/pdf' } },
            { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'plain' } },
            { type: 'document', source: { kind: 'file', fileId: 'file_9' } },
            { type: 'image', source: { kind: 'file', fileId: 'file_8' } },
            { type: 'text', text: 'See cited.', citations: [{ type: 'char_location', cited_text: 'x' }] },
          ],
        },
        { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
      ],
      stream: true,
      maxTokens: 100,
      temperature: 0.3,
      topP: 0.8,
      topK: 5,
      stop: ['END'],
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } }, strict: true, cache: { type: 'ephemeral' } },
        { type: 'provider', origin: 'anthropic', name: 'web_search', definition: { type: 'web_search_20250305', name: 'web_search', max_uses: 2 } },
        { type: 'provider', origin: 'anthropic', name: 'computer_toolset_20260801', definition: { type: 'computer_toolset_20260801' } },
      ],
      toolChoice: { type: 'any', disableParallel: true },
      thinking: { mode: 'adaptive', display: 'omitted', effort: 'xhigh' },
      responseFormat: { type: 'json', schema: { type: 'object' } },
      userId: 'user-1',
      source: {
        family: 'anthropic',
        betas: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'],
        extra: { service_tier: 'standard_only', container: 'cont_1', context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] }, speed: 'fast' },
      },
    });
    expect(warnings).toEqual([]);
  });

  it('reads string content, an empty system and the enabled/disabled thinking forms', () => {
    expect(read({ system: '', messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled', budget_tokens: 2048 } }).req).toMatchObject({
      system: [],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
      thinking: { mode: 'enabled', budgetTokens: 2048 },
    });
    expect(read({ system: 'S', messages: [], thinking: { type: 'disabled' }, tool_choice: { type: 'none' } }).req).toMatchObject({
      system: [{ type: 'text', text: 'S' }],
      thinking: { mode: 'disabled' },
      toolChoice: { type: 'none' },
    });
    expect(read({ messages: [], tool_choice: { type: 'tool', name: 'x' } }).req.toolChoice).toEqual({ type: 'tool', name: 'x' });
  });

  it('reads thinking signatures through the cross-family envelope', () => {
    const { req } = read({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'a', signature: 'native' },
            { type: 'thinking', thinking: 'b', signature: 'sy1.openai.r12ab' },
            { type: 'thinking', thinking: 'c', signature: '' },
            { type: 'thinking', thinking: '', signature: 'omitted-display-sig' },
          ],
        },
      ],
    });
    expect(req.messages[0]!.parts).toEqual([
      { type: 'reasoning', text: 'a', signature: { origin: 'anthropic', value: 'native' } },
      { type: 'reasoning', text: 'b', signature: { origin: 'openai', value: 'r12ab' } },
      { type: 'reasoning', text: 'c' },
      { type: 'reasoning', text: '', signature: { origin: 'anthropic', value: 'omitted-display-sig' } },
    ]);
  });

  it('moves a foreign signature carried by an empty thinking block back onto the next tool call', () => {
    const { req } = read({
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: '', signature: 'sy1.gemini.c2ln' },
            { type: 'tool_use', id: 't1', name: 'a', input: {} },
            { type: 'thinking', thinking: '', signature: 'anthropic-sig' },
            { type: 'tool_use', id: 't2', name: 'b', input: {} },
          ],
        },
      ],
    });
    expect(req.messages[0]!.parts).toEqual([
      { type: 'tool-call', id: 't1', name: 'a', input: {}, signature: { origin: 'gemini', value: 'c2ln' } },
      { type: 'reasoning', text: '', signature: { origin: 'anthropic', value: 'anthropic-sig' } },
      { type: 'tool-call', id: 't2', name: 'b', input: {} },
    ]);
  });

  it('keeps Anthropic-only blocks as raw parts', () => {
    const server = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const result = { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] };
    const search = { type: 'search_result', source: 's', title: 't', content: [{ type: 'text', text: 'r' }] };
    const contentDoc = { type: 'document', source: { type: 'content', content: 'inline' } };
    const upload = { type: 'container_upload', file_id: 'file_1' };
    const toolResult = { type: 'tool_result', tool_use_id: 'x', content: [{ type: 'text', text: 'a' }, search] };
    const { req } = read({ messages: [{ role: 'assistant', content: [server, result] }, { role: 'user', content: [search, contentDoc, upload, toolResult] }] });
    expect(req.messages.flatMap((m) => m.parts)).toEqual(
      [server, result, search, contentDoc, upload, toolResult].map((block) => ({ type: 'raw', origin: 'anthropic', block })),
    );
  });

  it('reads tool search\'s tool_reference as the tool\'s definition in text, marked to be written back as a reference', () => {
    const webFetch = { name: 'WebFetch', description: 'Fetches a URL', input_schema: { type: 'object', properties: { url: { type: 'string' } } }, defer_loading: true };
    const toolResult = { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }, { type: 'tool_reference', tool_name: 'Gone' }] };
    const { req } = read({
      tools: [{ name: 'ToolSearch', input_schema: { type: 'object' } }, webFetch],
      messages: [
        { role: 'user', content: 'load WebFetch' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
        { role: 'user', content: [toolResult] },
      ],
    });
    expect(req.messages[2]!.parts).toEqual([{
      type: 'tool-result',
      callId: 'toolu_1',
      name: 'ToolSearch',
      content: [
        { type: 'text', text: '<functions>\n<function>{"description":"Fetches a URL","name":"WebFetch","parameters":{"type":"object","properties":{"url":{"type":"string"}}}}</function>\n</functions>', toolReference: 'WebFetch' },
        { type: 'text', text: '<functions>\n<function>{"name":"Gone"}</function>\n</functions>', toolReference: 'Gone' },
      ],
    }]);
  });

  it('places top-level cache_control on the last cacheable block instead of forwarding it', () => {
    const { req } = read({
      cache_control: { type: 'ephemeral', ttl: '5m' },
      messages: [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: [{ type: 'text', text: 'two' }, { type: 'thinking', thinking: 't', signature: 's' }] },
      ],
    });
    expect(req.messages[1]!.parts[0]).toEqual({ type: 'text', text: 'two', cache: { type: 'ephemeral', ttl: '5m' } });
    expect(req.source.extra).toEqual({});

    const onTools = read({ cache_control: { type: 'ephemeral' }, messages: [], tools: [{ name: 'a', input_schema: { type: 'object' } }] }).req;
    expect(onTools.tools![0]).toEqual({ type: 'function', name: 'a', inputSchema: { type: 'object' }, cache: { type: 'ephemeral' } });

    expect(read({ cache_control: { type: 'ephemeral' }, messages: [] }).req.source.extra).toEqual({ cache_control: { type: 'ephemeral' } });
  });

  it('keeps thinking modes and effort the IR cannot hold in source.extra', () => {
    expect(read({ messages: [], thinking: { type: 'between_tools' } }).req).toMatchObject({ source: { extra: { thinking: { type: 'between_tools' } } } });
    const effortOnly = read({ messages: [], output_config: { effort: 'low', task_budget: 5 } }).req;
    expect(effortOnly.thinking).toBeUndefined();
    expect(effortOnly.source.extra).toEqual({ output_config: { effort: 'low', task_budget: 5 } });
  });

  it('reads the older output_format spelling and leftover metadata', () => {
    const { req } = read({ messages: [], output_format: { type: 'json_schema', schema: { type: 'object', required: ['a'] } }, metadata: { user_id: null, tenant: 't' } });
    expect(req.responseFormat).toEqual({ type: 'json', schema: { type: 'object', required: ['a'] } });
    expect(req.userId).toBeUndefined();
    expect(req.source.extra).toEqual({ metadata: { tenant: 't' } });
  });

  it('warns about block and tool fields it has to drop', () => {
    const { warnings } = read({
      messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'u' }, transformations: { oversized_image: 'downsize' } }] }],
      tools: [{ name: 'a', input_schema: { type: 'object' }, defer_loading: true, input_examples: [{}] }],
    });
    expect(warnings).toEqual([
      'messages.0.content.0.transformations has no equivalent outside Anthropic and was dropped',
      'tools.0.defer_loading has no equivalent outside Anthropic and was dropped',
      'tools.0.input_examples has no equivalent outside Anthropic and was dropped',
    ]);
  });

  it('reads a count_tokens body (no max_tokens)', () => {
    const body = parseWith(CountTokensRequest, { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(readAnthropicRequest(body, { stream: false })).toEqual<ChatRequest>({
      model: 'm',
      system: [],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      stream: false,
      source: { family: 'anthropic', extra: {} },
    });
  });
});
