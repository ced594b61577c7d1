import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../core/errors.ts';
import { readGeminiRequest } from '../../../../core/families/gemini/read-request.ts';
import { GeminiGenerateContentRequest } from '../../../../core/families/gemini/schema.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { parseWith } from '../../../../core/validate.ts';
import { loadJsonFixture } from '../../../helpers/streams.ts';

function read(body: unknown, warnings: string[] = []): ChatRequest {
  return readGeminiRequest(parseWith(GeminiGenerateContentRequest, body), { model: 'm', stream: false, warn: (w) => warnings.push(w) });
}

function refusal(body: unknown): { status: number; param?: string; message: string } {
  try {
    read(body);
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    return { status: err.status, param: err.opts.param, message: err.message };
  }
  throw new Error('expected a refusal');
}

const hi = [{ role: 'user', parts: [{ text: 'Hi' }] }];

describe('readGeminiRequest', () => {
  it('keeps a schema property named __proto__ as a property, as Deno does', () => {
    // On Node and Bun, `out["__proto__"] = value` would set the prototype and lose the property.
    const body = JSON.parse('{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"__proto__":{"type":"STRING"},"ok":{"type":"INTEGER"}},"__proto__":{"type":"STRING"}}}]}]}');
    const tool = read(body).tools![0] as { inputSchema: Record<string, unknown> };
    expect(Object.getPrototypeOf(tool.inputSchema)).toBe(Object.prototype);
    expect(JSON.stringify(tool.inputSchema)).toBe('{"type":"object","properties":{"__proto__":{"type":"string"},"ok":{"type":"integer"}},"__proto__":{"type":"STRING"}}');
  });

  it('keeps every key of a function call\'s args and refuses an array for them', () => {
    const args = '{"constructor":"Foo","prototype":1,"__proto__":{"a":1},"ok":2}';
    const body = JSON.parse(`{"contents":[{"role":"model","parts":[{"functionCall":{"name":"rename","args":${args}}}]}]}`);
    const part = read(body).messages[0]!.parts[0] as { input: unknown };
    expect(JSON.stringify(part.input)).toBe(args);
    expect(refusal({ contents: [{ role: 'model', parts: [{ functionCall: { name: 'rename', args: [1] } }] }] })).toMatchObject({
      status: 400,
      param: 'contents.0.parts.0.functionCall.args',
      message: 'contents.0.parts.0.functionCall.args: must be a JSON object',
    });
  });

  it('refuses an array where an object of optional fields goes, naming the field (valibot read [] as {})', () => {
    for (const [body, param] of [
      [{ contents: hi, generationConfig: [] }, 'generationConfig'],
      [{ contents: hi, generationConfig: { thinkingConfig: [{ thinkingBudget: 0 }] } }, 'generationConfig.thinkingConfig'],
      [{ contents: [{ role: 'user', parts: [[{ text: 'Hi' }]] }] }, 'contents.0.parts.0'],
      [{ contents: hi, tools: [[]] }, 'tools.0'],
      [{ contents: hi, toolConfig: { functionCallingConfig: [] } }, 'toolConfig.functionCallingConfig'],
    ] as const) {
      expect(refusal(body)).toEqual({ status: 400, param, message: `${param}: must be an object` });
    }
  });

  it('reads a request with every part kind, tools, tool config and generation config', () => {
    const warnings: string[] = [];
    const ir = read(loadJsonFixture('gemini/family-request-all-parts.json'), warnings);
    expect(warnings).toEqual([]);
    expect(ir).toEqual({
      model: 'm',
      stream: false,
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Use metric units.' },
      ],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Look at these.' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0xLjQ=' } },
            { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'hello world' } },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg', mediaType: 'image/jpeg' } },
            {
              type: 'document',
              source: { kind: 'file', fileId: 'https://generativelanguage.googleapis.com/v1beta/files/abc123', mediaType: 'application/pdf' },
            },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Let me think.' },
            { type: 'text', text: "I'll check the weather.", signature: { origin: 'gemini', value: 'R2VtaW5pU2lnMQ==' } },
            { type: 'tool-call', id: 'call_1_2', name: 'get_weather', input: { city: 'Paris' }, signature: { origin: 'gemini', value: 'R2VtaW5pU2lnMg==' } },
            { type: 'raw', origin: 'gemini', block: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
            { type: 'raw', origin: 'gemini', block: { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1\n' } } },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool-result', callId: 'call_1_2', name: 'get_weather', content: [{ type: 'text', text: '{"temp":20}' }] },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Current weather',
          inputSchema: {
            type: 'object',
            properties: {
              city: { type: 'string', description: 'City name', examples: ['Paris'] },
              tags: { type: ['array', 'null'], items: { type: 'string' }, maxItems: 3 },
            },
            required: ['city'],
          },
        },
        {
          type: 'function',
          name: 'search_docs',
          inputSchema: { type: 'object', properties: { q: { type: 'string' } }, additionalProperties: false },
        },
        { type: 'provider', origin: 'gemini', name: 'googleSearch', definition: { googleSearch: {} } },
        { type: 'provider', origin: 'gemini', name: 'codeExecution', definition: { codeExecution: {} } },
      ],
      toolChoice: { type: 'tool', name: 'get_weather' },
      maxTokens: 1024,
      temperature: 0.5,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      seed: 7,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      thinking: { mode: 'enabled', budgetTokens: 2048, display: 'summarized' },
      responseFormat: { type: 'json', schema: { type: 'object', properties: { answer: { type: 'string' } } } },
      source: {
        family: 'gemini',
        extra: {
          safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
          labels: { team: 'search' },
          generationConfig: { mediaResolution: 'MEDIA_RESOLUTION_LOW' },
        },
      },
    });
  });

  it('accepts a string system instruction and a missing role as user', () => {
    const ir = read({ systemInstruction: 'Be brief.', contents: [{ parts: [{ text: 'Hi' }] }] });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be brief.' }]);
    expect(ir.messages).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('refuses candidateCount above 1, naming the field', () => {
    expect(refusal({ contents: hi, generationConfig: { candidateCount: 2 } })).toEqual({
      status: 400,
      param: 'generationConfig.candidateCount',
      message: 'generationConfig.candidateCount: only 1 candidate can be generated for this model',
    });
    expect(read({ contents: hi, generationConfig: { candidateCount: 1 } }).messages).toHaveLength(1);
  });

  it('refuses what only Gemini can do instead of dropping it', () => {
    expect(refusal({ contents: hi, cachedContent: 'cachedContents/abc' }).param).toBe('cachedContent');
    expect(refusal({ contents: hi, generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } }).param).toBe('generationConfig.responseModalities');
    expect(refusal({ contents: hi, generationConfig: { responseMimeType: 'text/x.enum' } }).param).toBe('generationConfig.responseMimeType');
    expect(refusal({ contents: hi, generationConfig: { responseSchema: { type: 'STRING' } } }).param).toBe('generationConfig.responseMimeType');
    expect(refusal({ contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'audio/wav', data: 'AAAA' } }] }] }).param).toBe(
      'contents.0.parts.0.inlineData.mimeType',
    );
    expect(refusal({ contents: hi, generationConfig: { thinkingConfig: { thinkingBudget: 1024, thinkingLevel: 'high' } } }).param).toBe(
      'generationConfig.thinkingConfig',
    );
    expect(
      refusal({ contents: hi, tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['g'] } } })
        .param,
    ).toBe('toolConfig.functionCallingConfig.allowedFunctionNames.0');
  });

  it('reports schema errors with the field path', () => {
    expect(() => read({ contents: [{ role: 'system', parts: [] }] })).toThrow(/contents\.0\.role: must be "user" or "model"/);
    expect(() => read({ contents: [] })).toThrow(/contents: must not be empty/);
  });

  it('maps thinking budgets and levels', () => {
    const thinking = (thinkingConfig: unknown) => read({ contents: hi, generationConfig: { thinkingConfig } }).thinking;
    expect(thinking({ thinkingBudget: 0 })).toEqual({ mode: 'disabled' });
    expect(thinking({ thinkingBudget: -1 })).toEqual({ mode: 'adaptive', display: 'omitted' });
    expect(thinking({ thinkingBudget: 512, includeThoughts: true })).toEqual({ mode: 'enabled', budgetTokens: 512, display: 'summarized' });
    expect(thinking({ thinkingLevel: 'LOW' })).toEqual({ mode: 'adaptive', effort: 'low', display: 'omitted' });
    expect(thinking({ thinkingLevel: 'high', includeThoughts: true })).toEqual({ mode: 'adaptive', effort: 'high', display: 'summarized' });
    expect(thinking({ includeThoughts: false })).toBeUndefined();
  });

  it('maps function calling modes', () => {
    const tools = [{ functionDeclarations: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] }];
    const choice = (functionCallingConfig: unknown, warnings: string[] = []) => {
      const ir = read({ contents: hi, tools, toolConfig: { functionCallingConfig } }, warnings);
      return { choice: ir.toolChoice, names: ir.tools?.map((t) => t.name) };
    };
    expect(choice({ mode: 'AUTO' })).toEqual({ choice: { type: 'auto' }, names: ['a', 'b', 'c'] });
    expect(choice({ mode: 'none' })).toEqual({ choice: { type: 'none' }, names: ['a', 'b', 'c'] });
    expect(choice({ mode: 'ANY' })).toEqual({ choice: { type: 'any' }, names: ['a', 'b', 'c'] });
    const warnings: string[] = [];
    expect(choice({ mode: 'ANY', allowedFunctionNames: ['a', 'c'] }, warnings)).toEqual({ choice: { type: 'any' }, names: ['a', 'c'] });
    expect(warnings).toEqual(['toolConfig.functionCallingConfig.allowedFunctionNames: only the allowed functions were sent as tools']);
    expect(read({ contents: hi, tools }).toolChoice).toBeUndefined();
    expect(read({ contents: hi, tools }).tools?.[0]).toEqual({ type: 'function', name: 'a', inputSchema: { type: 'object', properties: {} } });
  });

  it('maps responseJsonSchema to a JSON response format as is', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const ir = read({ contents: hi, generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema } });
    expect(ir.responseFormat).toEqual({ type: 'json', schema });
    expect(read({ contents: hi, generationConfig: { responseMimeType: 'application/json' } }).responseFormat).toEqual({ type: 'json' });
  });
});
