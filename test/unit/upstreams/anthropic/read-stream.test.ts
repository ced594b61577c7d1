import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../../core/errors.ts';
import type { StreamEvent } from '../../../../core/ir.ts';
import { readAnthropicEvents } from '../../../../core/upstreams/anthropic/read-events.ts';
import { readAnthropicStream } from '../../../../core/upstreams/anthropic/read-stream.ts';
import { collect, errorView, fromArray, loadFixture, plainEvents, readInPieces } from '../../../helpers/streams.ts';

// Deltas read from their bytes (with a span) compared as the plain deltas they stand for.
const read = async (text: string) => plainEvents(await readInPieces(text, 5, readAnthropicStream({ provider: 'claude' })));
const sig = (value: string) => ({ origin: 'anthropic' as const, value });

/** Errors compared by what clients see of them. */
const plain = (events: StreamEvent[]) =>
  events.map((e) => (e.type === 'error' ? { type: 'error', ...errorView(e.error), isGatewayError: e.error instanceof GatewayError } : e));

describe('readAnthropicStream', () => {
  it('reads thinking, text and tool_use (digest A8 example)', async () => {
    expect(await read(loadFixture('anthropic/upstream-thinking-tool.sse'))).toEqual([
      { type: 'start', id: 'msg_01', model: 'claude-sonnet-4-6', usage: { inputTokens: 50, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'Need weather. ' },
      { type: 'reasoning-delta', index: 0, text: 'Call tool.' },
      { type: 'signature', index: 0, signature: sig('EqQBCgIYAhIM...') },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Let me check.' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'toolu_01', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 2, json: '{"city": "Par' },
      { type: 'tool-input-delta', index: 2, json: 'is"}' },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    ]);
  });

  it('reads redacted thinking and server tool blocks as raw, ignores citations_delta and unknown events', async () => {
    expect(await read(loadFixture('anthropic/upstream-server-tools.sse'))).toEqual([
      { type: 'start', id: 'msg_02', model: 'claude-sonnet-4-6', usage: { inputTokens: 120, outputTokens: 1, cacheReadTokens: 900, cacheWriteTokens: 30 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'raw', origin: 'anthropic', block: { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: {} } } },
      { type: 'tool-input-delta', index: 1, json: '{"query": ' },
      { type: 'tool-input-delta', index: 1, json: '"weather Paris"}' },
      { type: 'block-end', index: 1 },
      {
        type: 'block-start',
        index: 2,
        block: {
          type: 'raw',
          origin: 'anthropic',
          block: {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_01',
            content: [{ type: 'web_search_result', url: 'https://example.com/paris', title: 'Paris weather', encrypted_content: 'EqgfCioIARgB', page_age: null }],
          },
        },
      },
      { type: 'block-end', index: 2 },
      { type: 'block-start', index: 3, block: { type: 'text' } },
      { type: 'text-delta', index: 3, text: 'It is sunny.' },
      { type: 'block-end', index: 3 },
      // input_tokens null in message_delta keeps the earlier 120; output_tokens is replaced.
      { type: 'finish', reason: 'stop', usage: { inputTokens: 120, outputTokens: 87, cacheReadTokens: 900, cacheWriteTokens: 30, reasoningTokens: 25 } },
    ]);
  });

  it('turns a mid-stream overloaded error into an error event and emits nothing after it', async () => {
    const events = await read(loadFixture('anthropic/upstream-overloaded.sse'));
    expect(plain(events)).toEqual([
      { type: 'start', id: 'msg_03', model: 'claude-sonnet-4-6', usage: { inputTokens: 12, outputTokens: 1 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'error', kind: 'overloaded', status: 529, message: 'Overloaded', code: 'overloaded_error', isGatewayError: true },
    ]);
  });

  it('finishes a stream cut before message_stop with "stop", closing the open block', async () => {
    expect(await read(loadFixture('anthropic/upstream-cut.sse'))).toEqual([
      { type: 'start', id: 'msg_04', model: 'claude-haiku-4-5', usage: { inputTokens: 9, outputTokens: 1 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Partial ans' },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 9, outputTokens: 1 } },
    ]);
  });

  it('finishes a cut stream with the stop reason and stop sequence already seen', async () => {
    const text = [
      'event: message_start',
      'data: {"type":"message_start","message":{"id":"m","model":"c","content":[],"stop_reason":null,"usage":{"input_tokens":3,"output_tokens":1}}}',
      '',
      'event: message_delta',
      'data: {"type":"message_delta","delta":{"stop_reason":"stop_sequence","stop_sequence":"END"},"usage":{"output_tokens":7}}',
      '',
      '',
    ].join('\r\n');
    expect(await read(text)).toEqual([
      { type: 'start', id: 'm', model: 'c', usage: { inputTokens: 3, outputTokens: 1 } },
      { type: 'finish', reason: 'stop-sequence', stopSequence: 'END', usage: { inputTokens: 3, outputTokens: 7 } },
    ]);
  });

  it('reports an upstream that ends without any message as an error', async () => {
    expect(plain(await read('event: ping\ndata: {"type":"ping"}\n\n'))).toEqual([
      { type: 'error', kind: 'upstream', status: 502, message: 'Upstream "claude" ended the stream before sending a message', code: undefined, isGatewayError: true },
    ]);
  });

  it('maps mid-stream error types to kinds and statuses', async () => {
    const errorOf = async (type: string) => {
      const text = `event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":0}}}\n\nevent: error\ndata: {"type":"error","error":{"type":"${type}","message":"x"}}\n\n`;
      const last = (await read(text)).at(-1)!;
      return last.type === 'error' ? [last.error.kind, last.error.status] : last;
    };
    expect(await errorOf('rate_limit_error')).toEqual(['rate_limit', 429]);
    expect(await errorOf('api_error')).toEqual(['upstream', 500]);
    expect(await errorOf('invalid_request_error')).toEqual(['invalid_request', 400]);
    expect(await errorOf('timeout_error')).toEqual(['timeout', 504]);
    expect(await errorOf('brand_new_error')).toEqual(['upstream', 500]);
  });

  it('ignores deltas that do not fit their block (thinking_delta on a text block)', async () => {
    const text = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"c","usage":{"input_tokens":1,"output_tokens":1}}}',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"x"}}',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":5,"delta":{"type":"text_delta","text":"y"}}',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
      'event: message_stop\ndata: {"type":"message_stop"}',
      '',
    ].join('\n\n');
    expect(await read(text)).toEqual([
      { type: 'start', id: 'm', model: 'c', usage: { inputTokens: 1, outputTokens: 1 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } },
    ]);
  });
});

describe('readAnthropicEvents (parsed event objects, as Bedrock InvokeModel delivers them)', () => {
  it('reads the same events and signs with the given origin', async () => {
    const events = [
      { type: 'message_start', message: { id: 'msg_bdrk_1', model: 'claude', usage: { input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'S' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 9 } },
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 5, outputTokenCount: 9 } },
    ];
    expect(await collect(fromArray<unknown>(events).pipeThrough(readAnthropicEvents({ provider: 'br', origin: 'bedrock' })))).toEqual([
      { type: 'start', id: 'msg_bdrk_1', model: 'claude', usage: { inputTokens: 5, outputTokens: 1 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'hm' },
      { type: 'signature', index: 0, signature: { origin: 'bedrock', value: 'S' } },
      { type: 'block-end', index: 0 },
      { type: 'finish', reason: 'length', usage: { inputTokens: 5, outputTokens: 9 } },
    ]);
  });
});
