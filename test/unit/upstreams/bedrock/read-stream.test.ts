import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../../core/ir.ts';
import { readBedrockConverseStream, readBedrockInvokeStream } from '../../../../core/upstreams/bedrock/read-stream.ts';
import { chunkFrame, concatBytes, errorFrame, eventFrame, exceptionFrame, splitAt } from '../../../helpers/bedrock-frames.ts';
import { collect, fromArray } from '../../../helpers/streams.ts';

/** Errors compared by kind, status and message; start ids (minted) by shape. */
function plain(events: StreamEvent[]) {
  return events.map((e) => {
    if (e.type === 'error') return { type: 'error', kind: e.error.kind, status: e.error.status, message: e.error.message };
    if (e.type === 'start' && /^msg_bdrk_[0-9a-f]{24}$/.test(e.id)) return { ...e, id: '<minted>' };
    return e;
  });
}

async function converse(chunks: Uint8Array[]) {
  return plain(await collect(fromArray(chunks).pipeThrough(readBedrockConverseStream('aws', 'openai.gpt-oss-120b-1:0'))));
}

async function invoke(chunks: Uint8Array[]) {
  return plain(await collect(fromArray(chunks).pipeThrough(readBedrockInvokeStream('aws'))));
}

const converseFrames = [
  eventFrame('messageStart', { role: 'assistant', p: 'abcdefghijk' }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Need weather. ' } }, p: 'ab' }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { text: 'Call tool.' } } }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'EqQB' } } }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { signature: 'CgIY' } } }),
  eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'Let me ' } }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'check.' } }),
  eventFrame('contentBlockStop', { contentBlockIndex: 1 }),
  eventFrame('contentBlockStart', { contentBlockIndex: 2, start: { toolUse: { toolUseId: 'tooluse_2', name: 'get_weather' } } }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '{"city":' } } }),
  eventFrame('contentBlockDelta', { contentBlockIndex: 2, delta: { toolUse: { input: '"Paris"}' } } }),
  eventFrame('contentBlockStop', { contentBlockIndex: 2 }),
  eventFrame('someFutureEvent', { anything: true }),
  eventFrame('messageStop', { stopReason: 'tool_use' }),
  eventFrame('metadata', { usage: { inputTokens: 30, outputTokens: 60, totalTokens: 95, cacheReadInputTokens: 5 }, metrics: { latencyMs: 812 } }),
];

const converseEvents = [
  { type: 'start', id: '<minted>', model: 'openai.gpt-oss-120b-1:0' },
  { type: 'block-start', index: 0, block: { type: 'reasoning' } },
  { type: 'reasoning-delta', index: 0, text: 'Need weather. ' },
  { type: 'reasoning-delta', index: 0, text: 'Call tool.' },
  { type: 'signature', index: 0, signature: { origin: 'bedrock', value: 'EqQBCgIY' } },
  { type: 'block-end', index: 0 },
  { type: 'block-start', index: 1, block: { type: 'text' } },
  { type: 'text-delta', index: 1, text: 'Let me ' },
  { type: 'text-delta', index: 1, text: 'check.' },
  { type: 'block-end', index: 1 },
  { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'tooluse_2', name: 'get_weather' } },
  { type: 'tool-input-delta', index: 2, json: '{"city":' },
  { type: 'tool-input-delta', index: 2, json: '"Paris"}' },
  { type: 'block-end', index: 2 },
  { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 30, outputTokens: 60, cacheReadTokens: 5 } },
];

describe('readBedrockConverseStream', () => {
  it('maps reasoning (signature pieces joined), text and tool blocks, usage after messageStop', async () => {
    expect(await converse(converseFrames)).toEqual(converseEvents);
  });

  it('gives the same events whatever the network chunking', async () => {
    const all = concatBytes(...converseFrames);
    const pieces: number[] = [];
    for (let i = 7; i < all.length; i += 7) pieces.push(i);
    expect(await converse(splitAt(all, ...pieces))).toEqual(converseEvents);
  });

  it('opens a new block when Bedrock moves to a new index without a stop', async () => {
    expect(await converse([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'a' } }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 1, delta: { text: 'b' } }),
      eventFrame('messageStop', { stopReason: 'max_tokens' }),
      eventFrame('metadata', { usage: { inputTokens: 1, outputTokens: 2 } }),
    ])).toEqual([
      { type: 'start', id: '<minted>', model: 'openai.gpt-oss-120b-1:0' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'a' },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'b' },
      { type: 'block-end', index: 1 },
      { type: 'finish', reason: 'length', usage: { inputTokens: 1, outputTokens: 2 } },
    ]);
  });

  it.each([
    ['throttlingException', 'rate_limit', 429],
    ['validationException', 'invalid_request', 400],
    ['modelStreamErrorException', 'upstream', 502],
    ['serviceUnavailableException', 'overloaded', 529],
    ['internalServerException', 'upstream', 500],
  ])('turns a %s frame into a final error event after the events before it', async (exception, kind, status) => {
    expect(await converse([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hel' } }),
      exceptionFrame(exception, { message: 'Something went wrong.' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'lo' } }),
    ])).toEqual([
      { type: 'start', id: '<minted>', model: 'openai.gpt-oss-120b-1:0' },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Hel' },
      { type: 'error', kind, status, message: 'Something went wrong.' },
    ]);
  });

  it('ignores anything after the finish, exceptions included', async () => {
    expect(await converse([...converseFrames, exceptionFrame('throttlingException', { message: 'late' })])).toEqual(converseEvents);
  });

  it('turns an unmodelled error frame into an error event', async () => {
    expect(await converse([errorFrame('InternalFailure', 'We encountered an internal error.')])).toEqual([
      { type: 'error', kind: 'upstream', status: 502, message: 'We encountered an internal error.' },
    ]);
  });

  it('turns a corrupted frame into an error event, never a silent stop', async () => {
    const bad = eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'lo' } });
    bad[bad.length - 6]! ^= 0x20;
    expect(await converse([eventFrame('messageStart', { role: 'assistant' }), bad])).toEqual([
      { type: 'start', id: '<minted>', model: 'openai.gpt-oss-120b-1:0' },
      { type: 'error', kind: 'upstream', status: 502, message: 'Bedrock sent a malformed event stream: message CRC mismatch' },
    ]);
  });

  it('reports a stream cut before messageStop', async () => {
    expect(await converse(converseFrames.slice(0, 3))).toEqual([
      ...converseEvents.slice(0, 4),
      { type: 'error', kind: 'upstream', status: 502, message: 'Upstream "aws" ended the stream before messageStop' },
    ]);
    expect(await converse([])).toEqual([{ type: 'error', kind: 'upstream', status: 502, message: 'Upstream "aws" ended the stream before sending a message' }]);
  });
});

const anthropicEvents = [
  { type: 'message_start', message: { id: 'msg_bdrk_01', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 50, output_tokens: 1, cache_read_input_tokens: 10, cache_creation_input_tokens: 0 } } },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Need weather.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'EqQBCgIYAhIM' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Héllo ✓' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_bdrk_01', name: 'get_weather', input: {} } },
  { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":"Paris"}' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 42 } },
  { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 50, outputTokenCount: 42, invocationLatency: 900, firstByteLatency: 300 } },
];

describe('readBedrockInvokeStream', () => {
  it('reads base64 Anthropic events through the Anthropic event reader, signatures marked as Bedrock', async () => {
    expect(await invoke(anthropicEvents.map((e) => chunkFrame(e)))).toEqual([
      { type: 'start', id: 'msg_bdrk_01', model: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 50, outputTokens: 1, cacheReadTokens: 10, cacheWriteTokens: 0 } },
      { type: 'block-start', index: 0, block: { type: 'reasoning' } },
      { type: 'reasoning-delta', index: 0, text: 'Need weather.' },
      { type: 'signature', index: 0, signature: { origin: 'bedrock', value: 'EqQBCgIYAhIM' } },
      { type: 'block-end', index: 0 },
      { type: 'block-start', index: 1, block: { type: 'text' } },
      { type: 'text-delta', index: 1, text: 'Héllo ✓' },
      { type: 'block-end', index: 1 },
      { type: 'block-start', index: 2, block: { type: 'tool-call', id: 'toolu_bdrk_01', name: 'get_weather' } },
      { type: 'tool-input-delta', index: 2, json: '{"city":"Paris"}' },
      { type: 'block-end', index: 2 },
      { type: 'finish', reason: 'tool-calls', usage: { inputTokens: 50, outputTokens: 42, cacheReadTokens: 10, cacheWriteTokens: 0 } },
    ]);
  });

  it('ends with the mapped error when an exception frame arrives mid-stream', async () => {
    expect(await invoke([
      chunkFrame(anthropicEvents[0]),
      chunkFrame(anthropicEvents[5]),
      chunkFrame(anthropicEvents[6]),
      exceptionFrame('modelTimeoutException', { message: 'Model has timed out in processing the request.' }),
      chunkFrame(anthropicEvents[7]),
    ])).toEqual([
      { type: 'start', id: 'msg_bdrk_01', model: 'claude-sonnet-4-5-20250929', usage: { inputTokens: 50, outputTokens: 1, cacheReadTokens: 10, cacheWriteTokens: 0 } },
      { type: 'block-start', index: 0, block: { type: 'text' } },
      { type: 'text-delta', index: 0, text: 'Héllo ✓' },
      { type: 'error', kind: 'timeout', status: 504, message: 'Model has timed out in processing the request.' },
    ]);
  });

  it('passes an Anthropic error event inside a chunk through, and rejects a chunk that is not base64 JSON', async () => {
    expect(await invoke([chunkFrame(anthropicEvents[0]), chunkFrame({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })])).toEqual([
      expect.objectContaining({ type: 'start' }),
      { type: 'error', kind: 'overloaded', status: 529, message: 'Overloaded' },
    ]);
    expect(await invoke([eventFrame('chunk', { bytes: '%%%' })])).toEqual([
      { type: 'error', kind: 'upstream', status: 502, message: 'Upstream "aws" sent a stream chunk that is not base64 JSON' },
    ]);
  });
});
