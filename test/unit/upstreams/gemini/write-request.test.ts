import { describe, expect, it } from 'vitest';
import type { GatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, Message, ThinkingConfig, ToolChoice } from '../../../../core/ir.ts';
import type { GeminiProviderConfig } from '../../../../core/upstreams/gemini/endpoint.ts';
import { writeGeminiRequest } from '../../../../core/upstreams/gemini/write-request.ts';

const config: GeminiProviderConfig = {
  type: 'gemini',
  baseUrl: 'https://generativelanguage.googleapis.com/',
  apiKey: 'AIzaTEST',
  apiVersion: 'v1beta',
  headers: { 'X-Extra': 'on' },
};

function chat(over: Partial<ChatRequest>): ChatRequest {
  return { model: 'gemini-2.5-flash', system: [], messages: [], stream: false, source: { family: 'anthropic', extra: {} }, ...over };
}

function write(req: ChatRequest) {
  const warnings: string[] = [];
  const wire = writeGeminiRequest(req, config, (m) => warnings.push(m));
  return { url: wire.url, headers: wire.headers, body: JSON.parse(wire.body as string), warnings };
}

function refusal(req: ChatRequest): { kind: string; message: string; param?: string } {
  try {
    writeGeminiRequest(req, config, () => {});
  } catch (err) {
    const e = err as GatewayError;
    return { kind: e.kind, message: e.message, param: e.opts.param };
  }
  throw new Error('expected a refusal');
}

const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather',
  inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};

describe('writeGeminiRequest', () => {
  it('translates a whole Claude-style conversation', () => {
    const messages: Message[] = [
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'Look at these.' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' } },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.JPG?size=2' } },
          { type: 'image', source: { kind: 'url', url: 'https://example.com/render' } },
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0x' }, title: 'report.pdf' },
          { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'Plain notes.' } },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Checking the weather.' },
          { type: 'tool-call', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool-call', id: 'gx_r1_0', name: 'get_weather', input: { city: 'Oslo' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', callId: 'toolu_01', content: [{ type: 'text', text: '{"temp":21}' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/' } }] },
          { type: 'tool-result', callId: 'gx_r1_0', content: [{ type: 'text', text: 'city not found' }], isError: true },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'And tomorrow?' }] },
    ];
    const out = write(
      chat({
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use metric units.' }],
        messages,
        tools: [weatherTool],
        toolChoice: { type: 'tool', name: 'get_weather' },
        maxTokens: 1024,
        temperature: 0.4,
        topP: 0.9,
        topK: 40,
        stop: ['END'],
        seed: 7,
        presencePenalty: 0.1,
        frequencyPenalty: 0.2,
        thinking: { mode: 'enabled', budgetTokens: 31999 },
        userId: 'user-1',
      }),
    );
    expect(out).toEqual({
      url: 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent',
      headers: { 'x-extra': 'on', 'content-type': 'application/json', 'x-goog-api-key': 'AIzaTEST' },
      body: {
        contents: [
          {
            role: 'user',
            parts: [
              { text: 'Look at these.' },
              { inlineData: { mimeType: 'image/png', data: 'iVBORw0K' } },
              { fileData: { mimeType: 'image/jpeg', fileUri: 'https://example.com/cat.JPG?size=2' } },
              { fileData: { fileUri: 'https://example.com/render' } },
              { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0x' } },
              { text: 'Plain notes.' },
            ],
          },
          {
            role: 'model',
            parts: [
              { text: 'Checking the weather.' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
              { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { name: 'get_weather', response: { output: { temp: 21 } } } },
              { functionResponse: { name: 'get_weather', response: { error: 'city not found' } } },
              { inlineData: { mimeType: 'image/jpeg', data: '/9j/' } },
              { text: 'And tomorrow?' },
            ],
          },
        ],
        systemInstruction: { parts: [{ text: 'Be brief.' }, { text: 'Use metric units.' }] },
        tools: [
          {
            functionDeclarations: [
              { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
            ],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } },
        generationConfig: {
          maxOutputTokens: 1024,
          temperature: 0.4,
          topP: 0.9,
          topK: 40,
          stopSequences: ['END'],
          seed: 7,
          presencePenalty: 0.1,
          frequencyPenalty: 0.2,
          thinkingConfig: { thinkingBudget: 24576, includeThoughts: true },
        },
      },
      warnings: [
        'messages.0.parts.3: the media type of the image URL could not be inferred; sent without mimeType',
        'tool "get_weather" schema rewritten for Gemini: (root): removed "$schema"; (root): removed "additionalProperties"',
        "thinking: budget 31999 is outside this model's range 1-24576; 24576 used",
      ],
    });
  });

  it('streams with alt=sse', () => {
    expect(write(chat({ stream: true, messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] })).url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
  });

  it('gives a Claude-history tool call in the current turn the escape signature for Gemini 3', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris, then Oslo?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'I should call the tool.', signature: { origin: 'anthropic', value: 'EqQBCkYIBxgCKkD' } },
          { type: 'tool-call', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_01', content: [{ type: 'text', text: 'sunny' }] }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_02', name: 'get_weather', input: { city: 'Oslo' } }] },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_02', content: [{ type: 'text', text: 'rain' }] }] },
    ];
    const out = write(chat({ model: 'gemini-3-pro-preview', messages }));
    expect(out.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris, then Oslo?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Oslo' } }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'rain' } } }] },
    ]);
    expect(out.warnings).toEqual([
      '1 reasoning block(s) not produced by Gemini were dropped (Gemini cannot verify them)',
      '2 function-call step(s) in the current turn had no Gemini thought signature; sent with "skip_thought_signature_validator"',
    ]);
  });

  it('leaves unsigned calls of earlier turns alone, and Gemini 2.5 entirely', () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Paris?' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_01', content: [{ type: 'text', text: 'sunny' }] }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Sunny.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
    ];
    const three = write(chat({ model: 'gemini-3-flash-preview', messages }));
    expect(three.body.contents[1]).toEqual({ role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] });
    expect(three.warnings).toEqual([]);
    const current: Message[] = messages.slice(0, 3);
    expect(write(chat({ model: 'gemini-2.5-pro', messages: current })).body.contents[1].parts[0].thoughtSignature).toBeUndefined();
  });

  it('restores Gemini signatures where they were received', () => {
    const sig = (value: string) => ({ origin: 'gemini' as const, value });
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Go' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: '**Planning**', signature: sig('T1') },
          { type: 'reasoning', text: '', signature: sig('C1') },
          { type: 'tool-call', id: 'fc-1', name: 'run', input: {} },
          { type: 'tool-call', id: 'fc-2', name: 'run', input: { n: 2 } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'fc-1', name: 'run', content: [] }, { type: 'tool-result', callId: 'fc-2', content: [{ type: 'text', text: '[1,2]' }] }] },
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Done', signature: sig('X1') },
          { type: 'text', text: ' really.' },
          { type: 'reasoning', text: '', signature: sig('E1') },
        ],
      },
    ];
    const out = write(chat({ model: 'gemini-3-pro-preview', messages }));
    expect({ body: out.body, warnings: out.warnings }).toEqual({
      body: {
        contents: [
          { role: 'user', parts: [{ text: 'Go' }] },
          {
            role: 'model',
            parts: [
              { text: '**Planning**', thought: true, thoughtSignature: 'T1' },
              { functionCall: { id: 'fc-1', name: 'run', args: {} }, thoughtSignature: 'C1' },
              { functionCall: { id: 'fc-2', name: 'run', args: { n: 2 } } },
            ],
          },
          {
            role: 'user',
            parts: [
              { functionResponse: { id: 'fc-1', name: 'run', response: { output: '' } } },
              { functionResponse: { id: 'fc-2', name: 'run', response: { output: [1, 2] } } },
            ],
          },
          { role: 'model', parts: [{ text: 'Done', thoughtSignature: 'X1' }, { text: ' really.' }, { text: '', thoughtSignature: 'E1' }] },
        ],
      },
      warnings: [],
    });
  });

  it('merges consecutive same-role turns and sends a mid-conversation system message as user text', () => {
    const out = write(
      chat({
        messages: [
          { role: 'user', parts: [{ type: 'text', text: 'One' }] },
          { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
          { role: 'user', parts: [{ type: 'text', text: '' }, { type: 'text', text: 'Two' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Un' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Deux' }] },
        ],
      }),
    );
    expect(out.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'One' }, { text: '[system] Answer in French.' }, { text: 'Two' }] },
      { role: 'model', parts: [{ text: 'Un' }, { text: 'Deux' }] },
    ]);
    expect(out.warnings).toEqual(['messages.1: a system message inside the conversation was sent to Gemini as user text']);
  });

  it.each<[ToolChoice, object]>([
    [{ type: 'auto' }, { mode: 'AUTO' }],
    [{ type: 'any' }, { mode: 'ANY' }],
    [{ type: 'none' }, { mode: 'NONE' }],
    [{ type: 'tool', name: 'get_weather' }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
  ])('maps tool choice %j', (toolChoice, functionCallingConfig) => {
    expect(write(chat({ tools: [weatherTool], toolChoice })).body.toolConfig).toEqual({ functionCallingConfig });
  });

  it('passes Gemini built-in tools and asks for JSON output with a response schema', () => {
    const out = write(
      chat({
        tools: [
          { type: 'provider', origin: 'gemini', name: 'googleSearch', definition: {} },
          { type: 'provider', origin: 'gemini', name: 'codeExecution', definition: { codeExecution: {} } },
        ],
        responseFormat: { type: 'json', schema: { type: 'object', properties: { answer: { type: 'string' } }, $schema: 'x' } },
      }),
    );
    expect(out.body).toEqual({
      contents: [],
      tools: [{ googleSearch: {} }, { codeExecution: {} }],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', properties: { answer: { type: 'string' } } } },
    });
    expect(out.warnings).toEqual(['response format schema rewritten for Gemini: (root): removed "$schema"']);
  });

  it.each<[string, ThinkingConfig, object | undefined, string[]]>([
    ['gemini-2.5-flash', { mode: 'enabled', budgetTokens: 2048 }, { thinkingBudget: 2048, includeThoughts: true }, []],
    ['gemini-2.5-flash', { mode: 'adaptive' }, { thinkingBudget: -1, includeThoughts: true }, []],
    ['gemini-2.5-flash', { mode: 'disabled' }, { thinkingBudget: 0 }, []],
    ['gemini-2.5-flash-lite', { mode: 'enabled', budgetTokens: 100, display: 'omitted' }, { thinkingBudget: 512, includeThoughts: false },
      ["thinking: budget 100 is outside this model's range 512-24576; 512 used"]],
    ['gemini-2.5-pro', { mode: 'disabled' }, { thinkingBudget: 128 }, ['thinking: this model cannot turn thinking off; the minimum budget 128 was used']],
    ['gemini-2.5-pro', { mode: 'adaptive', effort: 'medium' }, { thinkingBudget: 8192, includeThoughts: true }, []],
    ['gemini-3-pro-preview', { mode: 'adaptive' }, { includeThoughts: true }, []],
    ['gemini-3-pro-preview', { mode: 'adaptive', effort: 'medium' }, { thinkingLevel: 'HIGH', includeThoughts: true },
      ['thinking: thinkingLevel MEDIUM is not available on this model; HIGH used']],
    ['gemini-3-flash-preview', { mode: 'enabled', budgetTokens: 4096 }, { thinkingLevel: 'MEDIUM', includeThoughts: true },
      ['thinking: Gemini 3 takes a level, not a budget; budget 4096 sent as thinkingLevel MEDIUM']],
    ['gemini-3-flash-preview', { mode: 'disabled' }, { thinkingLevel: 'MINIMAL' }, ['thinking: Gemini 3 models cannot turn thinking off; thinkingLevel MINIMAL used']],
    ['gemini-2.0-flash', { mode: 'enabled', budgetTokens: 2048 }, undefined, ['thinking: model "gemini-2.0-flash" does not think; the thinking settings were dropped']],
    ['my-tuned-model', { mode: 'enabled', budgetTokens: 99999 }, { thinkingBudget: 99999, includeThoughts: true }, []],
  ])('thinking for %s: %j', (model, thinking, thinkingConfig, warnings) => {
    const out = write(chat({ model, thinking }));
    expect({ thinkingConfig: out.body.generationConfig?.thinkingConfig, warnings: out.warnings }).toEqual({ thinkingConfig, warnings });
  });

  it('refuses what Gemini cannot take, naming it', () => {
    const raw: Message = { role: 'assistant', parts: [{ type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_1' } }] };
    expect(refusal(chat({ messages: [raw] }))).toEqual({
      kind: 'invalid_request',
      message: 'messages.0.parts.0: the anthropic "server_tool_use" block cannot be sent to a Gemini model',
      param: 'messages.0.parts.0',
    });
    expect(refusal(chat({ tools: [{ type: 'provider', origin: 'anthropic', name: 'code_execution', definition: { type: 'code_execution_20250825', name: 'code_execution' } }] }))).toEqual({
      kind: 'invalid_request',
      message: 'tools.0: the anthropic tool "code_execution" cannot be used with a Gemini model',
      param: 'tools.0',
    });
    expect(refusal(chat({ messages: [{ role: 'user', parts: [{ type: 'tool-result', callId: 'call_9', content: [] }] }] }))).toEqual({
      kind: 'invalid_request',
      message: 'messages.0.parts.0: tool result "call_9" has no matching tool call in the conversation; Gemini needs the function name',
      param: 'messages.0.parts.0',
    });
    expect(refusal(chat({ stop: ['a', 'b', 'c', 'd', 'e', 'f'] }))).toEqual({
      kind: 'invalid_request',
      message: 'stop: Gemini accepts at most 5 stop sequences (got 6)',
      param: 'stop',
    });
    expect(refusal(chat({ tools: [{ ...weatherTool, name: '1st-tool' }] }))).toMatchObject({ kind: 'invalid_request', param: 'tools.0.name' });
    expect(
      refusal(chat({ messages: [{ role: 'user', parts: [{ type: 'document', source: { kind: 'file', fileId: 'file_011CNha8iCJcU1wXNR6q4V8w' } }] }] })),
    ).toEqual({
      kind: 'invalid_request',
      message: 'messages.0.parts.0: file "file_011CNha8iCJcU1wXNR6q4V8w" is not a Gemini file URI',
      param: 'messages.0.parts.0',
    });
  });
});

describe('writeGeminiRequest with a Gemini-style client', () => {
  it('keeps the client fields the IR has no slot for', () => {
    const extra = { safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }], generationConfig: { responseModalities: ['TEXT'], temperature: 2 } };
    const out = write(chat({ temperature: 0.5, source: { family: 'gemini', extra } }));
    expect(out.body).toEqual({
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      contents: [],
      generationConfig: { responseModalities: ['TEXT'], temperature: 0.5 },
    });
  });

  it('ignores other families\' extras', () => {
    expect(write(chat({ source: { family: 'anthropic', extra: { metadata: { user_id: 'u' } } } })).body).toEqual({ contents: [] });
  });
});
