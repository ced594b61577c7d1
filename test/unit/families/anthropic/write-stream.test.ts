import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../core/errors.ts';
import { writeAnthropicErrorFrame, writeAnthropicStream } from '../../../../core/families/anthropic/write-stream.ts';
import { encodeSse } from '../../../../core/http/sse-write.ts';
import type { StreamEvent } from '../../../../core/ir.ts';
import { collect, fromArray, loadFixture } from '../../../helpers/streams.ts';

const decoder = new TextDecoder();

async function wire(events: StreamEvent[], opts: { model: string; id?: string }): Promise<string> {
  const messages = await collect(fromArray(events).pipeThrough(writeAnthropicStream(opts)));
  return messages.map((m) => decoder.decode(encodeSse(m))).join('');
}

describe('writeAnthropicStream', () => {
  it('text deltas (written as text) carry the exact bytes JSON.stringify gives the event object', async () => {
    const text = 'quote " backslash \\ newline \n tab \t nul \u0000 emoji 🙂 line-sep \u2028 </script>';
    const out = await collect(fromArray<StreamEvent>([
      { type: 'start', id: 'msg_01', model: 'm' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text },
    ]).pipeThrough(writeAnthropicStream({ model: 'm' })));
    const delta = out.find((m) => m.event === 'content_block_delta')!;
    expect(delta.data).toBe(JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
  });

  it('writes thinking, text and tool_use exactly as the Anthropic API does', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_01', model: 'claude-sonnet-4-6-upstream', usage: { inputTokens: 50, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'Need weather. ' },
      { type: 'reasoning-delta', index: 0, text: 'Call tool.' },
      { type: 'signature', index: 0, signature: { origin: 'anthropic', value: 'EqQBCgIYAhIM...' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Let me check.' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'toolu_01', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 2, json: '' },
      { type: 'tool-input-delta', index: 2, json: '{"city": "Par' },
      { type: 'tool-input-delta', index: 2, json: 'is"}' },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ];
    expect(await wire(events, { model: 'claude-sonnet-4-6' })).toBe(loadFixture('anthropic/write-stream-thinking-text-tool.sse'));
  });

  it('writes text, the matched stop sequence and late usage; empty text deltas open no block', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'chatcmpl-42', model: 'openai/gpt-oss-120b' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: '' },
      { type: 'text-delta', index: 0, text: 'Hello' },
      { type: 'text-delta', index: 0, text: ', world.' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: '' },
      { type: 'block-end', index: 1 },
      { type: 'usage', usage: { inputTokens: 12, cacheReadTokens: 30 } },
      { type: 'finish', reason: 'stop-sequence', stopSequence: 'END', usage: { inputTokens: 12, outputTokens: 7, cacheReadTokens: 30 } },
    ];
    expect(await wire(events, { model: 'acme.gpt-oss-120b' })).toBe(loadFixture('anthropic/write-stream-text.sse'));
  });

  it('ends with event: error and nothing more when the upstream fails mid-stream', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_02', model: 'x', usage: { inputTokens: 9, outputTokens: 1 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Partial' },
      { type: 'error', error: new GatewayError('overloaded', 'Overloaded') },
      { type: 'text-delta', index: 0, text: 'ignored' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 9, outputTokens: 2 } },
    ];
    expect(await wire(events, { model: 'claude-sonnet-4-6' })).toBe(loadFixture('anthropic/write-stream-error.sse'));
  });

  it('closes the open block and ends the message when the upstream stops without a finish', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_03', model: 'x', usage: { inputTokens: 5 } },
      { type: 'block-start', index: 0, block: { type: 'tool-call', id: 'call_1', name: 'lookup' } },
      { type: 'tool-input-delta', index: 0, json: '{"q":1}' },
      { type: 'usage', usage: { outputTokens: 3 } },
    ];
    expect(await wire(events, { model: 'claude-sonnet-4-6' })).toBe(loadFixture('anthropic/write-stream-no-finish.sse'));
  });

  it('carries foreign signatures, sanitises tool ids, keeps redacted thinking and skips foreign raw blocks', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'gem-1', model: 'gemini-2.5-flash', usage: { inputTokens: 20 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'Plan.' },
      { type: 'signature', index: 0, signature: { origin: 'gemini', value: 'c2lnLWE=' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'raw', origin: 'gemini', block: { executableCode: { code: 'print(1)' } } } },
      { type: 'text-delta', index: 1, text: 'never shown' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'functions.Bash:12', name: 'Bash', signature: { origin: 'gemini', value: 'c2lnLWI=' } } },
      { type: 'tool-input-delta', index: 2, json: '{"cmd":"ls"}' },
      { type: 'block-end', index: 2 },
      { type: 'block-start', index: 3, block: { type: 'reasoning', redacted: 'ENCRYPTED' } },
      { type: 'block-end', index: 3 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 20, outputTokens: 11 } },
    ];
    expect(await wire(events, { model: 'acme.gemini-2.5-flash' })).toBe(loadFixture('anthropic/write-stream-foreign-signatures.sse'));
  });

  it('carries a Gemini text signature in an empty thinking block after the text block, once another block follows', async () => {
    const sig = (value: string) => ({ origin: 'gemini' as const, value });
    const events: StreamEvent[] = [
      { type: 'start', id: 'gem-2', model: 'gemini-2.5-flash' },
      // 2.5: the signature comes with the first answer part, more text follows in the same block.
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Of course!' },
      { type: 'signature', index: 0, signature: sig('VDE=') },
      { type: 'text-delta', index: 0, text: ' Checking.' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'tool-call', id: 'fc-1', name: 'Bash', signature: sig('QzE=') } },
      { type: 'tool-input-delta', index: 1, json: '{}' },
      { type: 'block-end', index: 1 },
      // 3: the closing signature arrives on a trailing empty part. Nothing follows it, and a message
      // ending on a thinking block reads as an empty answer to Claude Code: it is not carried.
      { type: 'block-start', index: 2, block: { type: 'text' } },
      { type: 'text-delta', index: 2, text: 'Done.' },
      { type: 'signature', index: 2, signature: sig('VDI=') },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
    ];
    const frames = (await collect(fromArray(events).pipeThrough(writeAnthropicStream({ model: 'm' })))).map((f) => [f.event, JSON.parse(f.data)]);
    const start = (index: number, block: object) => ['content_block_start', { type: 'content_block_start', index, content_block: block }];
    const delta = (index: number, d: object) => ['content_block_delta', { type: 'content_block_delta', index, delta: d }];
    const stop = (index: number) => ['content_block_stop', { type: 'content_block_stop', index }];
    const thinking = { type: 'thinking', thinking: '', signature: '' };
    expect(frames.slice(1, -2)).toEqual([
      start(0, { type: 'text', text: '' }),
      ['ping', { type: 'ping' }],
      delta(0, { type: 'text_delta', text: 'Of course!' }),
      delta(0, { type: 'text_delta', text: ' Checking.' }),
      stop(0),
      start(1, thinking),
      delta(1, { type: 'signature_delta', signature: 'sy1.gemini.VDE=' }),
      stop(1),
      start(2, thinking),
      delta(2, { type: 'signature_delta', signature: 'sy1.gemini.QzE=' }),
      stop(2),
      start(3, { type: 'tool_use', id: 'fc-1', name: 'Bash', input: {} }),
      delta(3, { type: 'input_json_delta', partial_json: '{}' }),
      stop(3),
      start(4, { type: 'text', text: '' }),
      delta(4, { type: 'text_delta', text: 'Done.' }),
      stop(4),
    ]);
    expect(frames.at(-2)).toEqual(['message_delta', expect.objectContaining({ delta: { stop_reason: 'end_turn', stop_sequence: null } })]);
  });

  it('a text block that got only a signature (no text) sends just the carrier, before the block that follows', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'gem-3', model: 'gemini-2.5-flash' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'signature', index: 0, signature: { origin: 'gemini', value: 'RQ==' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 1, text: 'More.' },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
    ];
    const frames = (await collect(fromArray(events).pipeThrough(writeAnthropicStream({ model: 'm' })))).map((f) => [f.event, JSON.parse(f.data)]);
    expect(frames.slice(1, -2)).toEqual([
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sy1.gemini.RQ==' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'More.' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ]);
  });

  it('never sends a delta into a block of another type, and numbers blocks in wire order', async () => {
    const events: StreamEvent[] = [
      { type: 'start', id: 'msg_x', model: 'm' },
      { type: 'block-start', index: 5, block: { type: 'text' } },
      { type: 'reasoning-delta', index: 5, text: 'thought' },
      { type: 'text-delta', index: 5, text: 'answer' },
      { type: 'block-end', index: 5 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 2 } },
    ];
    const frames = (await collect(fromArray(events).pipeThrough(writeAnthropicStream({ model: 'm' })))).map((f) => [f.event, JSON.parse(f.data)]);
    expect(frames.slice(1, -2)).toEqual([
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'thought' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'answer' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
    ]);
  });

  it('uses the fallback id when the upstream gives none, and reports an empty upstream as an error', async () => {
    const text = await wire([{ type: 'start', id: '', model: 'm' }, { type: 'finish', reason: 'length', usage: { inputTokens: 1, outputTokens: 2 } }], { model: 'c', id: 'msg_fallback' });
    expect(text).toContain('"id":"msg_fallback"');
    expect(text).toContain('"stop_reason":"max_tokens"');
    expect(await wire([], { model: 'c' })).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Upstream ended the stream before sending anything"}}\n\n',
    );
  });

  it('renders an error frame for the stream guard', () => {
    expect(writeAnthropicErrorFrame(new GatewayError('rate_limit', 'Slow down'))).toEqual({
      event: 'error',
      data: '{"type":"error","error":{"type":"rate_limit_error","message":"Slow down"}}',
    });
  });
});
