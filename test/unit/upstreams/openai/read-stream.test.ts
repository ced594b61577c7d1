import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../core/errors.ts';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import { mintReasoningSignature } from '../../../../core/signature.ts';
import { readOpenAIStream } from '../../../../core/upstreams/openai/read-stream.ts';
import { bytesInPieces, collect, loadFixture, plainEvents, readInPieces } from '../../../helpers/streams.ts';

const req: ChatRequest = { model: 'requested-model', system: [], messages: [], stream: true, source: { family: 'anthropic', extra: {} } };

async function run(text: string, size = 7): Promise<StreamEvent[]> {
  return plainEvents(await readInPieces(text, size, readOpenAIStream(req, 'oss')));
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c1', model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('readOpenAIStream', () => {
  it('reads a plain text stream without a usage chunk', async () => {
    expect(await run(loadFixture('openai/text.sse'))).toEqual([
      { type: 'start', id: 'chatcmpl-7f3a', model: 'gpt-oss-120b' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hello' },
      { type: 'text-delta', index: 0, text: ' world' },
      { type: 'text-delta', index: 0, text: '!' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('waits for the usage chunk and subtracts cached tokens (comments and obfuscation ignored)', async () => {
    expect(await run(loadFixture('openai/usage-last-chunk.sse'))).toEqual([
      { type: 'start', id: 'chatcmpl-B9x2', model: 'gpt-4.1-mini-2025-04-14' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hi' },
      { type: 'text-delta', index: 0, text: ' there.' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 86, outputTokens: 4, cacheReadTokens: 1920, reasoningTokens: 0 } },
    ]);
  });

  it('reads vLLM `reasoning` into a signed reasoning block, then text', async () => {
    const reasoning = 'The user greets me. Reply briefly.';
    expect(await run(loadFixture('openai/reasoning-then-text.sse'))).toEqual([
      { type: 'start', id: 'chatcmpl-9a1c0f5e8b7d4e2f', model: 'openai/gpt-oss-120b' },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'The user' },
      { type: 'reasoning-delta', index: 0, text: ' greets me.' },
      { type: 'reasoning-delta', index: 0, text: ' Reply briefly.' },
      { type: 'signature', index: 0, signature: mintReasoningSignature(reasoning) },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Hello!' },
      { type: 'text-delta', index: 1, text: ' How can I help?' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 71, outputTokens: 24 } },
    ]);
  });

  it('reads DeepSeek reasoning_content, text and a tool call whose arguments stay tool input', async () => {
    expect(await run(loadFixture('openai/reasoning-content-tool-call.sse'))).toEqual([
      { type: 'start', id: '5e1b2c3d-aaaa-4bbb-8ccc-0123456789ab', model: 'deepseek-reasoner' },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'The user wants' },
      { type: 'reasoning-delta', index: 0, text: ' the weather in Paris.' },
      { type: 'signature', index: 0, signature: mintReasoningSignature('The user wants the weather in Paris.') },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Let me check.' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'call_00_Kq8xYvT2', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 2, json: '{"city":' },
      { type: 'tool-input-delta', index: 2, json: ' "Paris"}' },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 64, outputTokens: 45, cacheReadTokens: 256, reasoningTokens: 21 } },
    ]);
  });

  it('never overlaps blocks when parallel tool calls interleave', async () => {
    expect(await run(loadFixture('openai/parallel-tool-calls-interleaved.sse'))).toEqual([
      { type: 'start', id: 'chatcmpl-par1', model: 'qwen3-235b' },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'call_a', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 0, json: '{"city":' },
      { type: 'tool-input-delta', index: 0, json: '"Paris"}' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'call_b', name: 'get_time' } },
      { type: 'tool-input-delta', index: 1, json: '{"tz":' },
      { type: 'tool-input-delta', index: 1, json: '"CET"}' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 150, outputTokens: 30 } },
    ]);
  });

  it('turns a mid-stream error payload into an error event and stops', async () => {
    const events = await run(loadFixture('openai/error-midstream.sse'));
    expect(events.slice(0, -1)).toEqual([
      { type: 'start', id: 'chatcmpl-err1', model: 'gpt-oss-120b' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Partial' },
    ]);
    const last = events.at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect(last.type).toBe('error');
    expect(last.error).toBeInstanceOf(GatewayError);
    expect([last.error.kind, last.error.status, last.error.message, last.error.opts.code]).toEqual([
      'upstream',
      502,
      'Upstream oss: The server had an error while processing your request. Sorry about that!',
      'server_error',
    ]);
  });

  it('finishes as stop when the stream ends without finish_reason or [DONE]', async () => {
    expect(await run(loadFixture('openai/no-finish.sse'))).toEqual([
      { type: 'start', id: 'chatcmpl-cut1', model: 'llama-3.3-70b' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'The answer is' },
      { type: 'text-delta', index: 0, text: ' 42' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('splits a leading <think> in content (raw reasoning format) across fragments; Groq usage from x_groq', async () => {
    expect(await run(loadFixture('openai/think-tags-raw.sse'), 5)).toEqual([
      { type: 'start', id: 'chatcmpl-6b2f8a41-groq', model: 'qwen/qwen3-32b' },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: '\nLet me' },
      { type: 'reasoning-delta', index: 0, text: ' add.\n' },
      { type: 'signature', index: 0, signature: mintReasoningSignature('\nLet me add.\n') },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: '2 + 2' },
      { type: 'text-delta', index: 1, text: ' = 4' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 14, outputTokens: 19 } },
    ]);
  });

  it('reads whole calls sent in one fragment each, without index, keyed by id', async () => {
    const text =
      chunk({ role: 'assistant', content: null }) +
      chunk({ tool_calls: [{ id: 'x1', type: 'function', function: { name: 'a', arguments: '{"q":1}' } }] }) +
      chunk({ tool_calls: [{ id: 'x2', type: 'function', function: { name: 'b', arguments: '{}' } }] }) +
      chunk({}, 'tool_calls') +
      'data: [DONE]\n\n';
    expect(await run(text)).toEqual([
      { type: 'start', id: 'c1', model: 'm' },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'x1', name: 'a' } },
      { type: 'tool-input-delta', index: 0, json: '{"q":1}' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'x2', name: 'b' } },
      { type: 'tool-input-delta', index: 1, json: '{}' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('tells calls apart by id when a host reuses index 0, and ignores repeated id/name', async () => {
    const text =
      chunk({ tool_calls: [{ index: 0, id: 'g1', function: { name: 'a', arguments: '{"x":' } }] }) +
      chunk({ tool_calls: [{ index: 0, id: 'g1', function: { name: 'a', arguments: '1}' } }] }) +
      chunk({ tool_calls: [{ index: 0, id: 'g2', function: { name: 'b', arguments: '{"y":2}' } }] }) +
      chunk({}, 'tool_calls');
    expect(await run(text)).toEqual([
      { type: 'start', id: 'c1', model: 'm' },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'g1', name: 'a' } },
      { type: 'tool-input-delta', index: 0, json: '{"x":' },
      { type: 'tool-input-delta', index: 0, json: '1}' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'g2', name: 'b' } },
      { type: 'tool-input-delta', index: 1, json: '{"y":2}' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('replays a call still held back at the end, and invents an id when the host gives none', async () => {
    const text =
      chunk({ tool_calls: [{ index: 0, id: 'k1', function: { name: 'a', arguments: '' } }] }) +
      chunk({ tool_calls: [{ index: 1, function: { name: 'b', arguments: '{"z":' } }] }) +
      chunk({ tool_calls: [{ index: 1, function: { arguments: '3}' } }] }) +
      chunk({}, 'tool_calls') +
      'data: [DONE]\n\n';
    expect(await run(text)).toEqual([
      { type: 'start', id: 'c1', model: 'm' },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'k1', name: 'a' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'call_c1_1', name: 'b' } },
      { type: 'tool-input-delta', index: 1, json: '{"z":3}' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('closes a text block before a tool call and maps length', async () => {
    const text = chunk({ content: 'Sure.' }) + chunk({ tool_calls: [{ index: 0, id: 't', function: { name: 'f', arguments: '{"a"' } }] }) + chunk({}, 'length') + 'data: [DONE]\n\n';
    expect(await run(text)).toEqual([
      { type: 'start', id: 'c1', model: 'm' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Sure.' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 't', name: 'f' } },
      { type: 'tool-input-delta', index: 1, json: '{"a"' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'length', usage: { inputTokens: 0, outputTokens: 0 } },
    ]);
  });

  it('reports a stream with no data as an error, and non-JSON data as an error', async () => {
    const empty = await run('data: [DONE]\n\n');
    expect(empty.map((e) => e.type)).toEqual(['error']);
    const bad = await run(chunk({ content: 'a' }) + 'data: {not json\n\n' + chunk({ content: 'b' }));
    expect(bad.map((e) => e.type)).toEqual(['start', 'block-start', 'text-delta', 'error']);
    expect((bad.at(-1) as Extract<StreamEvent, { type: 'error' }>).error.message).toBe('Upstream oss: stream data is not JSON');
  });

  it('maps a vLLM-style numeric error code mid-stream to its status', async () => {
    const text = chunk({ content: 'a' }) + 'data: {"error":{"object":"error","message":"bad","type":"BadRequestError","param":null,"code":400}}\n\n';
    const last = (await run(text)).at(-1) as Extract<StreamEvent, { type: 'error' }>;
    expect([last.error.kind, last.error.status, last.error.message]).toEqual(['invalid_request', 400, 'Upstream oss: bad']);
  });

  it('cancels the upstream body after an error', async () => {
    let cancelled = false;
    const pieces = bytesInPieces(chunk({ content: 'a' }) + 'data: {"error":{"message":"x"}}\n\n', 1000);
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const piece of pieces) controller.enqueue(piece);
      },
      cancel() {
        cancelled = true;
      },
    });
    const events = await collect(source.pipeThrough(readOpenAIStream(req, 'oss')));
    expect(events.at(-1)?.type).toBe('error');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(cancelled).toBe(true);
  });
});
