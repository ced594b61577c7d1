import { describe, expect, it } from 'vitest';
import { type GatewayError, isGatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, Message } from '../../../../core/ir.ts';
import { mintReasoningSignature } from '../../../../core/signature.ts';
import type { OpenAIProviderConfig } from '../../../../core/upstreams/openai/types.ts';
import { writeOpenAIRequest } from '../../../../core/upstreams/openai/write-request.ts';

const baseConfig: OpenAIProviderConfig = {
  type: 'openai',
  baseUrl: 'https://api.deepseek.com/v1',
  apiKey: 'k',
  reasoningField: 'reasoning_content',
  replayReasoning: false,
  maxTokensField: 'max_tokens',
  supportsFiles: false,
};

function write(over: Partial<ChatRequest>, config: Partial<OpenAIProviderConfig> = {}) {
  const warnings: string[] = [];
  const req: ChatRequest = { model: 'deepseek-chat', system: [], messages: [], stream: false, source: { family: 'anthropic', extra: {} }, ...over };
  const wire = writeOpenAIRequest(req, 'oss', { ...baseConfig, ...config }, (m) => warnings.push(m));
  return { messages: JSON.parse(wire.body as string).messages, warnings };
}

function refusal(messages: Message[], config: Partial<OpenAIProviderConfig> = {}): GatewayError {
  try {
    write({ messages }, config);
  } catch (err) {
    if (isGatewayError(err)) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

const PNG = { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' };
const PDF = { kind: 'base64' as const, mediaType: 'application/pdf', data: 'JVBERi0xLjQ=' };

describe('writeOpenAIRequest: messages', () => {
  it('joins system blocks and moves the volatile billing header last', () => {
    const { messages } = write({
      system: [
        { type: 'text', text: 'x-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=cli; cch=ab12;' },
        { type: 'text', text: 'You are Claude Code.', cache: { type: 'ephemeral' } },
        { type: 'text', text: 'Be terse.' },
      ],
      messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'You are Claude Code.\n\nBe terse.\n\nx-anthropic-billing-header: cc_version=2.1.3; cc_entrypoint=cli; cch=ab12;' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it('writes a tool-use conversation: tool messages first, errors prefixed, images moved after them, _raw arguments restored', () => {
    const { messages, warnings } = write({
      messages: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and a screenshot?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Checking' },
            { type: 'text', text: ' now.' },
            { type: 'tool-call', id: 'toolu_01', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool-call', id: 'toolu_02', name: 'screenshot', input: {} },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool-result', callId: 'toolu_01', content: [{ type: 'text', text: 'timeout' }], isError: true },
            { type: 'tool-result', callId: 'toolu_02', content: [{ type: 'text', text: 'taken' }, { type: 'image', source: PNG }] },
            { type: 'text', text: 'Thanks' },
          ],
        },
        { role: 'system', parts: [{ type: 'text', text: 'Now answer in French.' }] },
        { role: 'assistant', parts: [{ type: 'tool-call', id: 'toolu_03', name: 'get_weather', input: { _raw: '{"city":"Lyon"' } }] },
        { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_03', content: [{ type: 'text', text: '18C' }] }] },
      ],
    });
    expect(messages).toEqual([
      { role: 'user', content: 'Weather in Paris and a screenshot?' },
      {
        role: 'assistant',
        content: 'Checking now.',
        tool_calls: [
          { id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'toolu_02', type: 'function', function: { name: 'screenshot', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'Error: timeout' },
      { role: 'tool', tool_call_id: 'toolu_02', content: 'taken' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'text', text: 'Thanks' },
        ],
      },
      { role: 'system', content: 'Now answer in French.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_03', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Lyon"' } }] },
      { role: 'tool', tool_call_id: 'toolu_03', content: '18C' },
    ]);
    expect(warnings).toEqual(['tool-result: images were moved into a user message (tool messages carry text only)']);
  });

  it('writes images by data URL or URL and text documents as text', () => {
    const { messages } = write({
      messages: [
        {
          role: 'user',
          parts: [
            { type: 'image', source: PNG },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'notes' }, title: 'n.txt' },
          ],
        },
      ],
    });
    expect(messages[0].content).toEqual([
      { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
      { type: 'text', text: 'notes' },
    ]);
  });

  it('refuses a PDF when the host takes no files (never a silent drop), also inside a tool result', () => {
    const err = refusal([{ role: 'user', parts: [{ type: 'text', text: 'Summarise' }, { type: 'document', source: PDF }] }]);
    expect([err.kind, err.status, err.opts.param]).toEqual(['invalid_request', 400, 'messages.0.content.1']);
    expect(err.message).toMatch(/^document: this model's host does not accept PDF\/file input/);
    const inner = refusal([
      { role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'read', input: {} }] },
      { role: 'user', parts: [{ type: 'tool-result', callId: 't1', content: [{ type: 'document', source: PDF }] }] },
    ]);
    expect(inner.opts.param).toBe('messages.1.content.0.content.0');
  });

  it('sends a PDF as a file part when the host supports files', () => {
    const { messages, warnings } = write(
      {
        messages: [
          { role: 'user', parts: [{ type: 'document', source: PDF, title: 'report.pdf' }, { type: 'text', text: 'Summarise' }] },
          { role: 'assistant', parts: [{ type: 'tool-call', id: 't1', name: 'read', input: {} }] },
          { role: 'user', parts: [{ type: 'tool-result', callId: 't1', content: [{ type: 'document', source: PDF }] }] },
        ],
      },
      { supportsFiles: true },
    );
    expect(messages[0].content).toEqual([
      { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'report.pdf' } },
      { type: 'text', text: 'Summarise' },
    ]);
    expect(messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 't1', content: '' },
      { role: 'user', content: [{ type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0xLjQ=', filename: 'document.pdf' } }] },
    ]);
    expect(warnings).toEqual(['tool-result: files were moved into a user message (tool messages carry text only)']);
  });

  it('refuses raw provider blocks and media in assistant turns, naming the field', () => {
    const raw = refusal([{ role: 'assistant', parts: [{ type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 's1' } }] }]);
    expect([raw.kind, raw.opts.param, raw.message]).toEqual([
      'invalid_request',
      'messages.0.content.0',
      'server_tool_use: the anthropic "server_tool_use" block cannot be sent to OpenAI-compatible host "oss"',
    ]);
    const userRaw = refusal([{ role: 'user', parts: [{ type: 'text', text: 'x' }, { type: 'raw', origin: 'anthropic', block: { type: 'web_search_tool_result' } }] }]);
    expect(userRaw.opts.param).toBe('messages.0.content.1');
    const image = refusal([{ role: 'assistant', parts: [{ type: 'image', source: PNG }] }]);
    expect([image.kind, image.opts.param]).toEqual(['invalid_request', 'messages.0.content.0']);
  });

  it('replays minted reasoning into the configured field only when enabled; drops others with one warning', () => {
    const minted = 'Need the weather.';
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: minted, signature: mintReasoningSignature(minted) },
          { type: 'tool-call', id: 'c1', name: 'get_weather', input: {} },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 'c1', content: [{ type: 'text', text: 'sunny' }] }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Claude thought', signature: { origin: 'anthropic', value: 'EqQBCkYIBxgC' } },
          { type: 'reasoning', text: 'edited', signature: mintReasoningSignature('original') },
          { type: 'text', text: 'Sunny.' },
        ],
      },
    ];
    const deepseek = write({ messages }, { replayReasoning: true });
    expect(deepseek.messages[1]).toEqual({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
      reasoning_content: minted,
    });
    expect(deepseek.messages[3]).toEqual({ role: 'assistant', content: 'Sunny.' });
    expect(deepseek.warnings).toEqual(['reasoning: earlier reasoning was dropped (this host does not take it back)']);

    const vllm = write({ messages }, { replayReasoning: true, reasoningField: 'reasoning' });
    expect(vllm.messages[1].reasoning).toBe(minted);

    const groq = write({ messages });
    expect(groq.messages[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] });
    expect(groq.warnings).toEqual(['reasoning: earlier reasoning was dropped (this host does not take it back)']);
  });
});
