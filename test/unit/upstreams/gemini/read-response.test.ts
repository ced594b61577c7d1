import { describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../../../core/ir.ts';
import { readGeminiResponse } from '../../../../core/upstreams/gemini/read-response.ts';
import { loadJsonFixture } from '../../../helpers/streams.ts';

const req: ChatRequest = { model: 'gemini-2.5-flash', system: [], messages: [], stream: false, source: { family: 'anthropic', extra: {} } };

describe('readGeminiResponse', () => {
  it('reads thoughts, signed text, cached and thought usage', () => {
    expect(readGeminiResponse(loadJsonFixture('gemini/upstream-response-text.json'), req)).toEqual({
      id: 'Il0taoSYJ5Cez7kPqI6Y0Q0',
      model: 'gemini-2.5-flash',
      parts: [
        { type: 'reasoning', text: "**Recalling geography**\n\nFrance's capital is well known." },
        { type: 'text', text: 'Paris is the capital of France.', signature: { origin: 'gemini', value: 'CiIBVKhc7oR2Ww==' } },
      ],
      finish: 'stop',
      usage: { inputTokens: 176, cacheReadTokens: 1024, outputTokens: 49, reasoningTokens: 42 },
    });
  });

  it('reads function calls without ids with synthesised ids, keeps the signature, finishes with tool-calls', () => {
    expect(readGeminiResponse(loadJsonFixture('gemini/upstream-response-calls-no-ids.json'), req)).toEqual({
      id: 'Yx4uaa3gLpKU',
      model: 'gemini-2.5-flash',
      parts: [
        { type: 'tool-call', id: 'gx_Yx4uaa3gLpKU_0', name: 'get_weather', input: { city: 'Paris' }, signature: { origin: 'gemini', value: 'CscBAdHtim8sigA==' } },
        { type: 'tool-call', id: 'gx_Yx4uaa3gLpKU_1', name: 'get_time', input: {} },
      ],
      finish: 'tool-calls',
      usage: { inputTokens: 61, outputTokens: 22 },
    });
  });

  it('answers a blocked prompt (no candidates) with content-filter and no parts', () => {
    expect(readGeminiResponse(loadJsonFixture('gemini/upstream-response-prompt-blocked.json'), req)).toEqual({
      id: 'bL0caa7sKfHI',
      model: 'gemini-2.5-flash',
      parts: [],
      finish: 'content-filter',
      usage: { inputTokens: 9, outputTokens: 0 },
    });
  });

  it('keeps Gemini ids, a trailing signature-only part, raw parts and maps MAX_TOKENS', () => {
    const body = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { functionCall: { id: 'k9', name: 'run', args: { x: 1 } }, thoughtSignature: 'A1' },
              { executableCode: { language: 'PYTHON', code: 'print(1)' } },
              { text: '', thoughtSignature: 'B2' },
            ],
          },
          finishReason: 'MAX_TOKENS',
        },
      ],
    };
    expect(readGeminiResponse(body, req)).toEqual({
      id: '',
      model: 'gemini-2.5-flash',
      parts: [
        { type: 'tool-call', id: 'k9', name: 'run', input: { x: 1 }, signature: { origin: 'gemini', value: 'A1' } },
        { type: 'raw', origin: 'gemini', block: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
        { type: 'reasoning', text: '', signature: { origin: 'gemini', value: 'B2' } },
      ],
      finish: 'length',
      usage: { inputTokens: 0, outputTokens: 0 },
    });
  });

  it('puts a closing signature-only part on the unsigned text before it', () => {
    const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }, { text: '', thoughtSignature: 'S' }] }, finishReason: 'STOP' }] };
    expect(readGeminiResponse(body, req).parts).toEqual([{ type: 'text', text: 'Hi', signature: { origin: 'gemini', value: 'S' } }]);
  });
});
