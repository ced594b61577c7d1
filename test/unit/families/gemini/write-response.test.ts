import { describe, expect, it } from 'vitest';
import { readGeminiContents } from '../../../../core/families/gemini/read-contents.ts';
import { writeGeminiResponse } from '../../../../core/families/gemini/write-response.ts';
import type { ChatResult, Part } from '../../../../core/ir.ts';
import { mintReasoningSignature } from '../../../../core/signature.ts';

const result = (parts: Part[], extra: Partial<ChatResult> = {}): ChatResult => ({
  id: 'resp_1',
  model: 'upstream-model',
  parts,
  finish: 'stop',
  usage: { inputTokens: 10, outputTokens: 5 },
  ...extra,
});

/** What a Gemini client sends back on the next turn: the candidate content, as the SDK chat stores it. */
function replay(parts: Part[]): Part[] {
  const content = writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content;
  return readGeminiContents([{ role: 'user', parts: [{ text: 'q' }] }, content])[1]!.parts;
}

describe('writeGeminiResponse', () => {
  it('writes the full response shape with usage, tool calls and STOP for a tool turn', () => {
    const res = writeGeminiResponse(
      result(
        [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        ],
        { finish: 'tool-calls', usage: { inputTokens: 10, outputTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 5, reasoningTokens: 20 } },
      ),
      { model: 'acme.claude' },
    );
    expect(res).toEqual({
      candidates: [
        {
          content: {
            parts: [{ text: 'Checking.' }, { functionCall: { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } } }],
            role: 'model',
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 115, candidatesTokenCount: 10, totalTokenCount: 145, cachedContentTokenCount: 100, thoughtsTokenCount: 20 },
      modelVersion: 'acme.claude',
      responseId: 'resp_1',
    });
  });

  it('always has at least one part and maps finish reasons', () => {
    const res = writeGeminiResponse(result([], { finish: 'length' }), { model: 'm' });
    expect(res.candidates[0]).toEqual({ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 });
    expect(writeGeminiResponse(result([], { finish: 'refusal' }), { model: 'm' }).candidates[0]!.finishReason).toBe('SAFETY');
    expect(writeGeminiResponse(result([], { finish: 'content-filter' }), { model: 'm' }).candidates[0]!.finishReason).toBe('SAFETY');
  });

  it('keeps Gemini-origin signatures raw, on the parts that carried them', () => {
    const parts: Part[] = [
      { type: 'text', text: 'Sure.', signature: { origin: 'gemini', value: 'R1NJRzE=' } },
      { type: 'tool-call', id: 'fc-1', name: 'f', input: {}, signature: { origin: 'gemini', value: 'R1NJRzI=' } },
    ];
    expect(writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content.parts).toEqual([
      { text: 'Sure.', thoughtSignature: 'R1NJRzE=' },
      { functionCall: { id: 'fc-1', name: 'f', args: {} }, thoughtSignature: 'R1NJRzI=' },
    ]);
    expect(replay(parts)).toEqual(parts);
  });

  it('puts a signature-only reasoning part onto the function call that follows it (wrapped, for Anthropic)', () => {
    const parts: Part[] = [
      { type: 'reasoning', text: '', signature: { origin: 'anthropic', value: 'EqQBsig' } },
      { type: 'tool-call', id: 'toolu_1', name: 'f', input: { a: 1 } },
    ];
    expect(writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content.parts).toEqual([
      { functionCall: { id: 'toolu_1', name: 'f', args: { a: 1 } }, thoughtSignature: 'sy1.anthropic.EqQBsig' },
    ]);
    expect(replay(parts)).toEqual(parts);
  });

  it('round-trips Anthropic thinking text with its signature, even when the client drops thought parts', () => {
    const parts: Part[] = [
      { type: 'reasoning', text: 'Let me think… about Paris.', signature: { origin: 'anthropic', value: 'EqQBsig' } },
      { type: 'tool-call', id: 'toolu_1', name: 'f', input: {} },
    ];
    const written = writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content.parts;
    expect(written[0]).toEqual({ text: 'Let me think… about Paris.', thought: true });
    expect(written[1]!.thoughtSignature).toMatch(/^sy1\.anthropic\.t:[A-Za-z0-9_-]+:EqQBsig$/);
    expect(replay(parts)).toEqual(parts);
    // Gemini CLI keeps only non-thought parts in its history.
    const stripped = written.filter((p) => !p.thought);
    expect(readGeminiContents([{ role: 'model', parts: stripped }])[0]!.parts).toEqual(parts);
  });

  it('carries redacted thinking and reasoning before text, and a trailing signature on an empty text part', () => {
    const minted = mintReasoningSignature('deepseek thoughts');
    const parts: Part[] = [
      { type: 'reasoning', text: '', redacted: 'ENCRYPTED' },
      { type: 'reasoning', text: 'deepseek thoughts', signature: minted },
      { type: 'text', text: 'Answer.' },
      { type: 'reasoning', text: '', signature: { origin: 'bedrock', value: 'BSIG' } },
    ];
    const written = writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content.parts;
    expect(written.map((p) => Object.keys(p).sort().join('+'))).toEqual(['text+thoughtSignature', 'text+thought', 'text+thoughtSignature', 'text+thoughtSignature']);
    expect(written[0]).toEqual({ text: '', thoughtSignature: 'sy1.anthropic.redacted:ENCRYPTED' });
    expect(written[3]).toEqual({ text: '', thoughtSignature: 'sy1.bedrock.BSIG' });
    expect(replay(parts)).toEqual(parts);
  });

  it('writes media and Gemini code-execution parts', () => {
    const parts: Part[] = [
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA==' } },
      { type: 'document', source: { kind: 'text', mediaType: 'text/plain', data: 'hé' } },
      { type: 'raw', origin: 'gemini', block: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
      { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use' } },
    ];
    expect(writeGeminiResponse(result(parts), { model: 'm' }).candidates[0]!.content.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'AA==' } },
      { inlineData: { mimeType: 'text/plain', data: 'aMOp' } },
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
    ]);
  });
});
