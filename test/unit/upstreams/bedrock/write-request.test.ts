import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../core/errors.ts';
import type { ChatRequest } from '../../../../core/ir.ts';
import { writeBedrockConverseRequest } from '../../../../core/upstreams/bedrock/write-request.ts';

const request = (over: Partial<ChatRequest>): ChatRequest => ({
  model: 'openai.gpt-oss-120b-1:0',
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream: false,
  source: { family: 'openai', extra: {} },
  ...over,
});

function write(req: ChatRequest) {
  const warnings: string[] = [];
  const before = structuredClone(req);
  const body = writeBedrockConverseRequest(req, (w) => warnings.push(w));
  expect(req).toEqual(before);
  return { body, warnings };
}

function refusal(req: ChatRequest): { kind: string; message: string } {
  try {
    writeBedrockConverseRequest(req, () => {});
  } catch (err) {
    if (isGatewayError(err)) return { kind: err.kind, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('writeBedrockConverseRequest', () => {
  it('maps a full tool-use conversation', () => {
    const { body, warnings } = write(request({
      system: [{ type: 'text', text: 'Be brief.', cache: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'What is in this image?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: 'JVBERi0=' }, title: 'report.pdf' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'signed', signature: { origin: 'bedrock', value: 'EqQB' } },
            { type: 'reasoning', text: 'unsigned gpt-oss reasoning' },
            { type: 'reasoning', text: 'from claude', signature: { origin: 'anthropic', value: 'sig' } },
            { type: 'tool-call', id: 'tooluse_abc', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          parts: [{ type: 'tool-result', callId: 'tooluse_abc', content: [{ type: 'text', text: '{"temp":20}' }], cache: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
      maxTokens: 2048,
      temperature: 1,
      topP: 0.9,
      stop: ['END'],
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
      toolChoice: { type: 'tool', name: 'get_weather' },
      thinking: { mode: 'enabled', effort: 'high' },
    }));
    expect(warnings).toEqual([]);
    expect(body).toEqual({
      messages: [
        {
          role: 'user',
          content: [
            { text: 'What is in this image?' },
            { image: { format: 'png', source: { bytes: 'iVBORw0KGgo=' } } },
            { document: { format: 'pdf', name: 'report pdf', source: { bytes: 'JVBERi0=' } } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { reasoningContent: { reasoningText: { text: 'signed', signature: 'EqQB' } } },
            { toolUse: { toolUseId: 'tooluse_abc', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          content: [
            { toolResult: { toolUseId: 'tooluse_abc', content: [{ text: '{"temp":20}' }] } },
            { cachePoint: { type: 'default', ttl: '1h' } },
          ],
        },
      ],
      system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
      inferenceConfig: { maxTokens: 2048, temperature: 1, topP: 0.9, stopSequences: ['END'] },
      toolConfig: {
        tools: [{ toolSpec: { name: 'get_weather', description: 'Weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } } }],
        toolChoice: { tool: { name: 'get_weather' } },
      },
      additionalModelRequestFields: { reasoning_effort: 'high' },
    });
  });

  it('enforces Bedrock turn rules: user first, alternation, no blank text, no system turns', () => {
    const { body, warnings } = write(request({
      messages: [
        { role: 'assistant', parts: [{ type: 'text', text: 'Hello, how can I help?' }] },
        { role: 'user', parts: [{ type: 'text', text: 'One' }] },
        { role: 'user', parts: [{ type: 'text', text: '  ' }, { type: 'text', text: 'Two' }] },
        { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
        { role: 'assistant', parts: [{ type: 'text', text: '' }] },
      ],
    }));
    expect(body).toEqual({
      messages: [
        { role: 'user', content: [{ text: 'Continue.' }] },
        { role: 'assistant', content: [{ text: 'Hello, how can I help?' }] },
        { role: 'user', content: [{ text: 'One' }, { text: 'Two' }] },
      ],
      system: [{ text: 'Answer in French.' }],
    });
    expect(warnings).toEqual([
      'messages.3: a mid-conversation system message was moved into the system prompt (Bedrock has no such turn)',
      'Bedrock requires the conversation to start with a user turn: a "Continue." user turn was added',
    ]);
  });

  it('drops tools for tool_choice none when the history has no tool blocks', () => {
    const { body } = write(request({
      tools: [{ type: 'function', name: 'f', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'none' },
    }));
    expect(body.toolConfig).toBeUndefined();
  });

  it('keeps toolConfig when the history has tool blocks, declaring stubs when the request has no tools', () => {
    const history: ChatRequest['messages'] = [
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'lookup', input: {} }] },
      { role: 'user', parts: [{ type: 'tool-result', callId: 't1', content: [] , isError: true }] },
    ];
    const none = write(request({ messages: history, tools: [{ type: 'function', name: 'lookup', inputSchema: { type: 'object' } }], toolChoice: { type: 'none' } }));
    expect(none.body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }] });
    expect(none.warnings).toEqual(['tool_choice "none" cannot be enforced on Bedrock while the history holds tool calls: tools stay available']);

    const stub = write(request({ messages: history }));
    expect(stub.body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object', properties: {} } } } }] });
    expect(stub.body.messages[2]).toEqual({ role: 'user', content: [{ toolResult: { toolUseId: 't1', content: [{ text: '(empty)' }], status: 'error' } }] });
  });

  it('maps tool choice auto/any and tool cache marks', () => {
    const tools: ChatRequest['tools'] = [{ type: 'function', name: 'f', inputSchema: { type: 'object' }, cache: { type: 'ephemeral' } }];
    expect(write(request({ tools, toolChoice: { type: 'auto' } })).body.toolConfig).toEqual({
      tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }, { cachePoint: { type: 'default' } }],
      toolChoice: { auto: {} },
    });
    const any = write(request({ tools, toolChoice: { type: 'any', disableParallel: true } }));
    expect(any.body.toolConfig?.toolChoice).toEqual({ any: {} });
    expect(any.warnings).toEqual(['disabling parallel tool calls is not supported by Bedrock Converse']);
  });

  it('reports what it drops and how it maps reasoning controls', () => {
    const { body, warnings } = write(request({
      topK: 40,
      seed: 1,
      presencePenalty: 0.5,
      frequencyPenalty: 0.5,
      userId: 'u1',
      thinking: { mode: 'enabled', budgetTokens: 1500 },
    }));
    expect(body.additionalModelRequestFields).toEqual({ reasoning_effort: 'low' });
    expect(warnings).toEqual([
      'top_k is not supported by "openai.gpt-oss-120b-1:0" through Converse and was dropped',
      'a thinking budget of 1500 tokens was sent to gpt-oss as reasoning effort "low"',
      'seed is not supported by Bedrock Converse and was dropped',
      'presence_penalty is not supported by Bedrock Converse and was dropped',
      'frequency_penalty is not supported by Bedrock Converse and was dropped',
      'the end-user id is not sent to Bedrock Converse',
    ]);
    const other = write(request({ model: 'us.amazon.nova-pro-v1:0', thinking: { mode: 'enabled', effort: 'xhigh' } }));
    expect(other.body.additionalModelRequestFields).toBeUndefined();
    expect(other.warnings).toEqual(['thinking settings are not supported for "us.amazon.nova-pro-v1:0" through Converse and were dropped']);
    expect(write(request({ thinking: { mode: 'enabled', effort: 'max' } })).warnings).toEqual(['reasoning effort "max" was sent to gpt-oss as "high"']);
  });

  it('asks for structured output with the schema as a string', () => {
    const { body } = write(request({ responseFormat: { type: 'json', name: 'answer', schema: { type: 'object', properties: { a: { type: 'number' } } } } }));
    expect(body.outputConfig).toEqual({
      textFormat: { type: 'json_schema', structure: { jsonSchema: { schema: '{"type":"object","properties":{"a":{"type":"number"}}}', name: 'answer' } } },
    });
  });

  it('names documents uniquely with only the characters Bedrock allows, and maps text documents', () => {
    const doc = (title?: string) => ({ type: 'document' as const, source: { kind: 'text' as const, mediaType: 'text/plain', data: 'hello' }, ...(title ? { title } : {}) });
    const { body } = write(request({ messages: [{ role: 'user', parts: [doc('a_b.txt'), doc('a b txt'), doc(), doc(), { type: 'text', text: 'Summarise' }] }] }));
    expect(body.messages[0]!.content.map((b) => ('document' in b ? b.document.name : undefined))).toEqual(['a b txt', 'a b txt (2)', 'document', 'document (2)', undefined]);
    expect(body.messages[0]!.content[0]).toEqual({ document: { format: 'txt', name: 'a b txt', source: { text: 'hello' } } });
  });

  it('takes s3:// media but refuses http URLs, file ids, odd media types, foreign blocks and provider tools', () => {
    const { body } = write(request({ messages: [{ role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 's3://bucket/cat.jpg', mediaType: 'image/jpeg' } }] }] }));
    expect(body.messages[0]!.content).toEqual([{ image: { format: 'jpeg', source: { s3Location: { uri: 's3://bucket/cat.jpg' } } } }]);

    const user = (part: ChatRequest['messages'][number]['parts'][number]) => request({ messages: [{ role: 'user', parts: [part] }] });
    expect(refusal(user({ type: 'image', source: { kind: 'url', url: 'https://x/cat.png', mediaType: 'image/png' } }))).toEqual({
      kind: 'invalid_request',
      message: 'messages.0.parts.0: Bedrock cannot take an image by URL; send it inline as base64',
    });
    expect(refusal(user({ type: 'image', source: { kind: 'base64', mediaType: 'image/bmp', data: 'AA==' } })).message).toBe(
      'messages.0.parts.0: Bedrock accepts png, jpeg, gif or webp images, not "image/bmp"',
    );
    expect(refusal(user({ type: 'document', source: { kind: 'file', fileId: 'file_1', mediaType: 'application/pdf' } })).message).toBe(
      'messages.0.parts.0: Bedrock cannot take a document as a file reference; send it inline as base64',
    );
    expect(refusal(user({ type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'x' } })).message).toBe(
      'messages.0.parts.0: a "server_tool_use" block from anthropic cannot be sent to Bedrock',
    );
    expect(refusal(request({ tools: [{ type: 'provider', origin: 'anthropic', name: 'web_search', definition: {} }] })).message).toBe(
      'tools.0: the provider-defined tool "web_search" is not available on Bedrock Converse',
    );
  });
});
