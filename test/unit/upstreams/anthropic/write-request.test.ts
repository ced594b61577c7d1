import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../core/ir.ts';
import type { AnthropicConfig } from '../../../../core/upstreams/anthropic/wire-types.ts';
import { writeAnthropicRequest } from '../../../../core/upstreams/anthropic/write-request.ts';

const config: AnthropicConfig = { type: 'anthropic', baseUrl: 'https://proxy.example/anthropic/', apiKey: 'sk-gateway', version: '2023-06-01' };

const chat = (over: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'claude-sonnet-4-6',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: false,
  maxTokens: 1000,
  source: { family: 'openai', extra: {} },
  ...over,
});

function write(req: ChatRequest, cfg: AnthropicConfig = config) {
  const warnings: string[] = [];
  const wire = writeAnthropicRequest(req, cfg, (m) => warnings.push(m));
  return { url: wire.url, headers: wire.headers, body: JSON.parse(wire.body as string), warnings };
}

describe('writeAnthropicRequest', () => {
  it('writes url, gateway headers, system blocks with cache_control and a default max_tokens', () => {
    const out = write(
      chat({
        maxTokens: undefined,
        stream: true,
        system: [{ type: 'text', text: 'Be terse.', cache: { type: 'ephemeral' } }, { type: 'text', text: '' }, { type: 'text', text: 'Rule 2', cache: { type: 'ephemeral', ttl: '1h' } }],
        stop: ['END'],
        userId: 'u-1',
      }),
      { ...config, headers: { 'X-Org': 'acme' } },
    );
    expect(out).toEqual({
      url: 'https://proxy.example/anthropic/v1/messages',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-gateway', 'anthropic-version': '2023-06-01', 'x-org': 'acme' },
      body: {
        model: 'claude-sonnet-4-6',
        max_tokens: 4096,
        system: [
          { type: 'text', text: 'Be terse.', cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'Rule 2', cache_control: { type: 'ephemeral', ttl: '1h' } },
        ],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
        stop_sequences: ['END'],
        metadata: { user_id: 'u-1' },
        stream: true,
      },
      warnings: ['max_tokens not given; sent 4096 (Anthropic requires it)'],
    });
  });

  it('merges same-role turns, drops empty text, puts one tool_result per id first, sanitizes ids', () => {
    const { body, warnings } = write(
      chat({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
          { role: 'user', parts: [{ type: 'text', text: '' }, { type: 'text', text: 'In Paris.' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'text', text: '' },
              { type: 'tool-call', id: 'functions.get_weather:0', name: 'get_weather', input: { city: 'Paris' } },
              { type: 'tool-call', id: 'Bash:12', name: 'bash', input: { cmd: 'date' } },
            ],
          },
          { role: 'user', parts: [{ type: 'text', text: 'here you go' }, { type: 'tool-result', callId: 'functions.get_weather:0', content: [{ type: 'text', text: 'sunny' }] }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'functions.get_weather:0', content: [{ type: 'text', text: '21 C' }], isError: true }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'Bash:12', content: [{ type: 'text', text: 'Mon' }], cache: { type: 'ephemeral' } }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'text', text: 'In Paris.' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'functions_get_weather_0', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'Bash_12', name: 'bash', input: { cmd: 'date' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'functions_get_weather_0', content: [{ type: 'text', text: 'sunny' }, { type: 'text', text: '21 C' }], is_error: true },
          { type: 'tool_result', tool_use_id: 'Bash_12', content: [{ type: 'text', text: 'Mon' }], cache_control: { type: 'ephemeral' } },
          { type: 'text', text: 'here you go' },
        ],
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('keeps sanitized ids distinct when two ids collapse to the same text', () => {
    const { body } = write(
      chat({
        messages: [
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'a.b', name: 'f', input: {} }, { type: 'tool-call', id: 'a:b', name: 'f', input: {} }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'a:b', content: [] }, { type: 'tool-result', callId: 'a.b', content: [] }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a_b', name: 'f', input: {} }, { type: 'tool_use', id: 'a_b_2', name: 'f', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a_b_2' }, { type: 'tool_result', tool_use_id: 'a_b' }] },
    ]);
  });

  it('replays only Anthropic-signed thinking; drops foreign and unsigned reasoning with a warning', () => {
    const { body, warnings } = write(
      chat({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Q' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'reasoning', text: 'mine', signature: { origin: 'anthropic', value: 'SIG-A' } },
              { type: 'reasoning', text: '', signature: { origin: 'anthropic', value: 'SIG-OMITTED' } },
              { type: 'reasoning', text: '', redacted: 'REDACTED' },
              { type: 'reasoning', text: 'gemini thought', signature: { origin: 'gemini', value: 'g-sig' } },
              { type: 'reasoning', text: 'deepseek thought', signature: { origin: 'openai', value: 'r123' } },
              { type: 'reasoning', text: 'plain' },
              { type: 'text', text: 'A' },
            ],
          },
        ],
      }),
    );
    expect(body.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'mine', signature: 'SIG-A' },
        { type: 'thinking', thinking: '', signature: 'SIG-OMITTED' },
        { type: 'redacted_thinking', data: 'REDACTED' },
        { type: 'text', text: 'A' },
      ],
    });
    expect(warnings).toEqual([
      'reasoning from gemini dropped: only anthropic-signed thinking can be replayed',
      'reasoning from openai dropped: only anthropic-signed thinking can be replayed',
      'reasoning from an unsigned source dropped: only anthropic-signed thinking can be replayed',
    ]);
  });

  it('downgrades a forced tool to auto with thinking, drops temperature/top_k and raises max_tokens above the budget', () => {
    const { body, warnings } = write(
      chat({
        maxTokens: 2000,
        temperature: 0.3,
        topK: 5,
        thinking: { mode: 'enabled', budgetTokens: 4000, display: 'omitted' },
        tools: [{ type: 'function', name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } }, cache: { type: 'ephemeral' } }],
        toolChoice: { type: 'tool', name: 'get_weather', disableParallel: true },
      }),
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-6',
      max_tokens: 6000,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, cache_control: { type: 'ephemeral' } }],
      thinking: { type: 'enabled', budget_tokens: 4000, display: 'omitted' },
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(warnings).toEqual([
      'max_tokens raised from 2000 to 6000: it must exceed thinking.budget_tokens (4000)',
      'tool_choice "tool" sent as "auto": forcing a tool is not allowed with thinking',
      'temperature dropped: not allowed with thinking',
      'top_k dropped: not allowed with thinking',
    ]);
  });

  it('raises a budget below 1024 and writes adaptive thinking with effort', () => {
    expect(write(chat({ thinking: { mode: 'enabled', budgetTokens: 500 }, maxTokens: 8000 }))).toMatchObject({
      body: { max_tokens: 8000, thinking: { type: 'enabled', budget_tokens: 1024 } },
      warnings: ["thinking.budget_tokens raised from 500 to 1024 (Anthropic's minimum)"],
    });
    const adaptive = write(chat({ thinking: { mode: 'adaptive', effort: 'minimal', display: 'summarized' }, responseFormat: { type: 'json', schema: { type: 'object' } } }));
    expect([adaptive.body.thinking, adaptive.body.output_config, adaptive.warnings]).toEqual([
      { type: 'adaptive', display: 'summarized' },
      { effort: 'low', format: { type: 'json_schema', schema: { type: 'object' } } },
      ['reasoning effort "minimal" sent as "low" (the lowest Anthropic effort)'],
    ]);
    expect(write(chat({ thinking: { mode: 'disabled' }, toolChoice: { type: 'any' }, tools: [{ type: 'function', name: 'f', inputSchema: {} }] })).body).toMatchObject({
      thinking: { type: 'disabled' },
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'any' },
    });
  });

  it('never sends temperature and top_p together; clamps temperature above 1 with a warning', () => {
    const { body, warnings } = write(chat({ temperature: 1.5, topP: 0.9, topK: 40, seed: 7 }));
    expect([body.temperature, body.top_p, body.top_k, warnings]).toEqual([
      1,
      undefined,
      40,
      [
        'top_p dropped: Anthropic models reject temperature and top_p together (temperature kept)',
        "temperature 1.5 lowered to 1 (Anthropic's maximum)",
        'seed dropped: Anthropic has no equivalent',
      ],
    ]);
  });

  it('drops all sampling parameters under anthropic-version 2026-10-21', () => {
    const out = write(chat({ temperature: 0.5, topP: 0.9, topK: 10 }), { ...config, version: '2026-10-21' });
    expect([out.headers['anthropic-version'], 'temperature' in out.body, 'top_p' in out.body, 'top_k' in out.body, out.warnings]).toEqual([
      '2026-10-21',
      false,
      false,
      false,
      [
        'temperature dropped: anthropic-version 2026-10-21 does not accept it',
        'top_p dropped: anthropic-version 2026-10-21 does not accept it',
        'top_k dropped: anthropic-version 2026-10-21 does not accept it',
      ],
    ]);
  });

  it('writes image and document sources', () => {
    const { body } = write(
      chat({
        messages: [
          {
            role: 'user',
            parts: [
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' }, cache: { type: 'ephemeral' } },
              { type: 'image', source: { kind: 'url', url: 'https://x.test/a.jpg' } },
              { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBER' }, title: 'Spec', citations: { enabled: true } },
              { type: 'document', source: { kind: 'base64', mediaType: 'text/plain', data: btoa(String.fromCharCode(...new TextEncoder().encode('héllo'))) } },
              { type: 'document', source: { kind: 'file', fileId: 'file_011' }, context: 'ctx' },
              { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'plain' } },
            ],
          },
        ],
      }),
    );
    expect(body.messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' }, cache_control: { type: 'ephemeral' } },
      { type: 'image', source: { type: 'url', url: 'https://x.test/a.jpg' } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBER' }, title: 'Spec', citations: { enabled: true } },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
      { type: 'document', source: { type: 'file', file_id: 'file_011' }, context: 'ctx' },
      { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain' } },
    ]);
  });

  it('sends Anthropic raw blocks and provider tools as they are, refuses other origins', () => {
    const serverUse = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'q' } };
    const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 };
    const { body } = write(
      chat({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'Q' }] },
          { role: 'assistant', parts: [{ type: 'raw', origin: 'anthropic', block: serverUse }] },
        ],
        tools: [{ type: 'provider', origin: 'anthropic', name: 'web_search', definition: webSearch }],
      }),
    );
    expect([body.messages[1], body.tools]).toEqual([{ role: 'assistant', content: [serverUse] }, [webSearch]]);

    const rawFromGemini = chat({ messages: [{ role: 'assistant', parts: [{ type: 'raw', origin: 'gemini', block: { executableCode: {} } }] }] });
    expect(() => write(rawFromGemini)).toThrow(expect.objectContaining({ kind: 'invalid_request', message: 'messages.0.parts.0: a block from gemini cannot be sent to an Anthropic upstream' }));
    const geminiTool = chat({ tools: [{ type: 'provider', origin: 'gemini', name: 'codeExecution', definition: { codeExecution: {} } }] });
    expect(() => write(geminiTool)).toThrow(expect.objectContaining({ kind: 'invalid_request', opts: expect.objectContaining({ param: 'tools.0' }) }));
  });

  it('writes a tool search find back as the tool_reference it was read from', () => {
    const { body } = write(
      chat({
        messages: [
          { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:WebFetch' } }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_1', name: 'ToolSearch', content: [{ type: 'text', text: '<functions>…</functions>', toolReference: 'WebFetch' }, { type: 'text', text: 'and a note' }] }] },
        ],
      }),
    );
    expect(body.messages[1]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'WebFetch' }, { type: 'text', text: 'and a note' }] }] });
  });

  it('forwards extras and betas only for a Claude-style client; keeps its mid-conversation system turns', () => {
    const messages: ChatRequest['messages'] = [
      { role: 'user', parts: [{ type: 'text', text: 'A' }] },
      { role: 'system', parts: [{ type: 'text', text: 'Be brief now.' }] },
    ];
    const extra = { context_management: { edits: [] }, service_tier: 'auto', stream: false };
    const native = write(chat({ messages, source: { family: 'anthropic', betas: ['context-management-2025-06-27', 'interleaved-thinking-2025-05-14'], extra } }));
    expect([native.headers['anthropic-beta'], native.body.context_management, native.body.service_tier, native.body.messages, native.warnings]).toEqual([
      'context-management-2025-06-27,interleaved-thinking-2025-05-14',
      { edits: [] },
      'auto',
      [
        { role: 'user', content: [{ type: 'text', text: 'A' }] },
        { role: 'system', content: [{ type: 'text', text: 'Be brief now.' }] },
      ],
      [],
    ]);
    expect('stream' in native.body).toBe(false);

    const foreign = write(chat({ messages, source: { family: 'gemini', betas: ['x'], extra } }));
    expect([foreign.headers['anthropic-beta'], 'context_management' in foreign.body, foreign.body.messages, foreign.warnings]).toEqual([
      undefined,
      false,
      [{ role: 'user', content: [{ type: 'text', text: 'A' }, { type: 'text', text: 'Be brief now.' }] }],
      ['mid-conversation system message sent as user text'],
    ]);
  });
});
