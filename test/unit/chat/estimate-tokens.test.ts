import { describe, expect, it } from 'vitest';
import { BYTES_PER_TOKEN, TOKENS_PER_IMAGE, TOKENS_PER_PDF_PAGE, estimateInputTokens } from '../../../core/chat/estimate-tokens.ts';
import type { ChatRequest, Message } from '../../../core/ir.ts';

function request(messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'm', system: [], messages, stream: false, source: { family: 'anthropic', extra: {} }, ...extra };
}

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

describe('estimateInputTokens', () => {
  it('counts text by UTF-8 bytes plus a small per-message overhead', () => {
    expect(estimateInputTokens(request([user('x'.repeat(320))]))).toBe(4 + Math.ceil(320 / BYTES_PER_TOKEN));
    // Three bytes per CJK character: about one token each, not a third of one.
    expect(estimateInputTokens(request([user('漢'.repeat(100))]))).toBe(4 + Math.ceil(300 / BYTES_PER_TOKEN));
  });

  it('includes the system prompt and tool definitions', () => {
    const system = [{ type: 'text' as const, text: 's'.repeat(64) }];
    const tools = [{ type: 'function' as const, name: 'get', description: 'd', inputSchema: { type: 'object' } }];
    const schemaBytes = 'get'.length + 'd'.length + JSON.stringify({ type: 'object' }).length;
    expect(estimateInputTokens(request([], { system, tools }))).toBe(350 + 10 + Math.ceil((64 + schemaBytes) / BYTES_PER_TOKEN));
  });

  it('counts each image by a fixed constant and a PDF by its pages', () => {
    const pdf = btoa('%PDF-1.4\n1 0 obj << /Type /Pages /Count 2 >>\n2 0 obj << /Type /Page >>\n3 0 obj << /Type/Page >>\n');
    const messages: Message[] = [
      {
        role: 'user',
        parts: [
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
          { type: 'image', source: { kind: 'url', url: 'https://x/y.png' } },
          { type: 'document', source: { kind: 'base64', mediaType: 'application/pdf', data: pdf } },
          { type: 'document', source: { kind: 'file', fileId: 'file_1' } },
        ],
      },
    ];
    expect(estimateInputTokens(request(messages))).toBe(4 + 2 * TOKENS_PER_IMAGE + 3 * TOKENS_PER_PDF_PAGE);
  });

  it('counts tool calls, results and raw blocks, and thinking only on the latest assistant turn', () => {
    const messages: Message[] = [
      { role: 'assistant', parts: [{ type: 'reasoning', text: 'x'.repeat(3200) }] },
      user('q'),
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'abcd' },
          { type: 'tool-call', id: 't', name: 'f', input: { a: 1 } },
        ],
      },
      { role: 'user', parts: [{ type: 'tool-result', callId: 't', content: [{ type: 'text', text: 'ok' }] }, { type: 'raw', origin: 'anthropic', block: { type: 'x' } }] },
    ];
    const bytes = 1 + 4 + 1 + JSON.stringify({ a: 1 }).length + 2 + JSON.stringify({ type: 'x' }).length;
    expect(estimateInputTokens(request(messages))).toBe(4 * 4 + Math.ceil(bytes / BYTES_PER_TOKEN));
  });
});
