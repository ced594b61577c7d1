import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../core/ir.ts';
import { readGeminiStream } from '../../../../core/upstreams/gemini/read-stream.ts';
import { collect, errorView, fromArray, loadFixture, plainEvents, readInPieces } from '../../../helpers/streams.ts';

/** Runs a fixture through the reader in small pieces; errors are reduced to comparable fields. */
async function read(fixture: string, size = 7): Promise<unknown[]> {
  const events = await readInPieces(loadFixture(`gemini/${fixture}`), size, readGeminiStream({ provider: 'google', model: 'gemini-fallback' }));
  return plainEvents(events).map((e: StreamEvent) => (e.type === 'error' ? { type: 'error', ...errorView(e.error) } : e));
}

async function readText(text: string): Promise<unknown[]> {
  const stream = fromArray([new TextEncoder().encode(text)]).pipeThrough(readGeminiStream({ provider: 'google', model: 'gemini-fallback' }));
  return plainEvents(await collect(stream));
}

describe('readGeminiStream', () => {
  it('reads a text stream as one text block and keeps the usage of the last chunk', async () => {
    expect(await read('upstream-text.sse')).toEqual([
      { type: 'start', id: 'Il0taoSYJ5Cez7kPqI6Y0Q0', model: 'gemini-2.5-flash', usage: { inputTokens: 8 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'The capital' },
      { type: 'text-delta', index: 0, text: ' of France is' },
      { type: 'text-delta', index: 0, text: ' Paris.' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 8, outputTokens: 32, reasoningTokens: 25 } },
    ]);
  });

  it('gives the same events however the bytes are cut', async () => {
    expect(await read('upstream-thought-signatures.sse', 1)).toEqual(await read('upstream-thought-signatures.sse', 4096));
  });

  it('reads thoughts as a reasoning block and puts each thoughtSignature on its block', async () => {
    expect(await read('upstream-thought-signatures.sse')).toEqual([
      { type: 'start', id: 'tF8taeWjB4Kwz7IP4tyMqAE', model: 'gemini-3-pro-preview', usage: { inputTokens: 12 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: '**Weighing the question**\n\nThe user wants' },
      { type: 'reasoning-delta', index: 0, text: ' a one-word answer.' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Paris' },
      { type: 'signature', index: 1, signature: { origin: 'gemini', value: 'CiQB0e2Kb7Zf3mQ==' } },
      { type: 'text-delta', index: 1, text: ', of course.' },
      { type: 'block-end', index: 1 },
      // The closing signature-only part: the text block is signed already, so it travels alone.
      { type: 'block-start', index: 2, block: { type: 'reasoning' } },
      { type: 'signature', index: 2, signature: { origin: 'gemini', value: 'EpsBCpgBAdHtim9==' } },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 12, outputTokens: 173, reasoningTokens: 168 } },
    ]);
  });

  it('signs the streamed text with a closing signature-only part when the text is unsigned', async () => {
    const chunk = (parts: unknown[], finish?: string) =>
      `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }], responseId: 'r1', modelVersion: 'gemini-3-flash-preview' })}\r\n\r\n`;
    expect(await readText(chunk([{ text: 'Hi' }]) + chunk([{ text: '', thoughtSignature: 'U0lH' }], 'STOP'))).toEqual([
      { type: 'start', id: 'r1', model: 'gemini-3-flash-preview' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hi' },
      { type: 'signature', index: 0, signature: { origin: 'gemini', value: 'U0lH' } },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('gives every parallel function call its own block (pitfall 13) and finishes with tool-calls', async () => {
    expect(await read('upstream-parallel-calls.sse')).toEqual([
      { type: 'start', id: 'Yx4uaa3gLpKUz7IPq5e6mAQ', model: 'gemini-3-pro-preview', usage: { inputTokens: 61 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: '**Checking both cities**' },
      { type: 'block-end', index: 0 },
      {
        type: 'block-start',
        index: 1,
        block: { type: 'tool-call', id: 'p8vx3k2a', name: 'get_weather', signature: { origin: 'gemini', value: 'CscBAdHtim8sigA==' } },
      },
      { type: 'tool-input-delta', index: 1, json: '{"city":"Paris"}' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'q1mz7d4b', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 2, json: '{"city":"London","unit":"celsius"}' },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 61, outputTokens: 109, reasoningTokens: 79 } },
    ]);
  });

  it('synthesises distinct marked ids for calls Gemini 2.5 sends without one', async () => {
    const body = { candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }, { functionCall: { name: 'b' } }] }, finishReason: 'STOP', index: 0 }], responseId: 'resp.1' };
    const events = (await readText(`data: ${JSON.stringify(body)}\n\n`)) as StreamEvent[];
    expect(events.filter((e) => e.type === 'block-start')).toEqual([
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'gx_resp_1_0', name: 'a' } },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'gx_resp_1_1', name: 'b' } },
    ]);
    expect(events.filter((e) => e.type === 'tool-input-delta')).toEqual([
      { type: 'tool-input-delta', index: 0, json: '{}' },
      { type: 'tool-input-delta', index: 1, json: '{}' },
    ]);
  });

  it('finishes a blocked prompt (no candidates) with content-filter and no blocks', async () => {
    expect(await read('upstream-prompt-blocked.sse')).toEqual([
      { type: 'start', id: 'bL0caa7sKfHIz7IP', model: 'gemini-2.5-flash', usage: { inputTokens: 9 } },
      { type: 'finish', reason: 'content-filter', usage: { inputTokens: 9, outputTokens: 0 } },
    ]);
  });

  it('finishes an answer stopped by SAFETY with content-filter', async () => {
    expect(await read('upstream-safety-finish.sse')).toEqual([
      { type: 'start', id: 'sF0caa', model: 'gemini-2.5-flash', usage: { inputTokens: 14 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Here is how' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'content-filter', usage: { inputTokens: 14, outputTokens: 3 } },
    ]);
  });

  it('turns an error chunk into an error event, closes the open block and ends without finish', async () => {
    expect(await read('upstream-error-chunk.sse')).toEqual([
      { type: 'start', id: 'eR0caa', model: 'gemini-2.5-flash', usage: { inputTokens: 5 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Once upon' },
      { type: 'block-end', index: 0 },
      { type: 'error', kind: 'overloaded', status: 503, message: 'The model is overloaded. Please try again later.', code: 'UNAVAILABLE' },
    ]);
  });

  it('finishes with stop when the stream ends without a finishReason', async () => {
    const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'partial' }] }, index: 0 }] };
    expect(await readText(`data: ${JSON.stringify(body)}\n\n`)).toEqual([
      { type: 'start', id: '', model: 'gemini-fallback' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'partial' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('keeps parts with no IR meaning as raw blocks', async () => {
    const part = { executableCode: { language: 'PYTHON', code: 'print(1)' } };
    const body = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], responseId: 'r' };
    expect(await readText(`data: ${JSON.stringify(body)}\n\n`)).toEqual([
      { type: 'start', id: 'r', model: 'gemini-fallback' },
      { type: 'block-start', index: 0, block: { type: 'raw', origin: 'gemini', block: part } },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('reports a chunk that is not JSON, and an empty stream, as upstream errors', async () => {
    const bad = (await readText('data: {not json\n\n')) as StreamEvent[];
    expect(bad.map((e) => (e.type === 'error' ? [e.type, e.error.kind, e.error.message] : e.type))).toEqual([
      ['error', 'upstream', 'Upstream "google" sent a stream chunk that is not JSON'],
    ]);
    const empty = (await readText('')) as StreamEvent[];
    expect(empty.map((e) => (e.type === 'error' ? [e.type, e.error.kind, e.error.message] : e.type))).toEqual([
      ['error', 'upstream', 'Upstream "google" ended the stream without sending anything'],
    ]);
  });
});
