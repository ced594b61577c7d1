import { describe, expect, it } from 'vitest';
import type { RouteTarget } from '../../../../core/catalog.ts';
import { readBedrockPassthroughBody } from '../../../../core/upstreams/bedrock/read-passthrough-body.ts';
import type { PassthroughCall } from '../../../../core/upstreams/types.ts';
import { chunkFrame, concatBytes, eventFrame, exceptionFrame, splitAt } from '../../../helpers/bedrock-frames.ts';
import { collect, fromArray } from '../../../helpers/streams.ts';
import { jsonBody } from '../../../helpers/json-body.ts';

const target: RouteTarget = { provider: 'aws', config: { type: 'bedrock', region: 'us-east-1', apiKey: 'k' }, upstreamModel: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0' };
const call = (over: Partial<PassthroughCall>): PassthroughCall => ({ target, source: jsonBody({}), headers: new Headers(), action: 'messages', stream: true, ...over });

function streamOf(chunks: Uint8Array[]): Response {
  return new Response(fromArray(chunks), { headers: { 'content-type': 'application/vnd.amazon.eventstream' } });
}

async function text(body: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  return (await collect(body)).map((b) => decoder.decode(b, { stream: true })).join('');
}

const events = [
  '{"type":"message_start","message":{"id":"msg_bdrk_01","type":"message","role":"assistant","model":"claude-sonnet-4-5-20250929","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":1}}}',
  '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
  '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Héllo ✓"}}',
  '{"type":"content_block_stop","index":0}',
  '{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":5}}',
  '{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":5,"invocationLatency":420,"firstByteLatency":200}}',
];

const sse = (type: string, data: string) => `event: ${type}\ndata: ${data}\n\n`;

describe('readBedrockPassthroughBody', () => {
  it('re-frames the binary stream as exact Anthropic SSE, dropping only the Bedrock metrics', async () => {
    const frames = concatBytes(...events.map((e) => chunkFrame(e)));
    const body = readBedrockPassthroughBody(streamOf(splitAt(frames, 10, 200, 201)), call({}));
    expect(await text(body)).toBe(
      sse('message_start', events[0]!) +
        sse('content_block_start', events[1]!) +
        sse('content_block_delta', events[2]!) +
        sse('content_block_stop', events[3]!) +
        sse('message_delta', events[4]!) +
        sse('message_stop', '{"type":"message_stop"}'),
    );
  });

  it('ends with an Anthropic error event when Bedrock sends an exception frame', async () => {
    const body = readBedrockPassthroughBody(
      streamOf([chunkFrame(events[0]!), exceptionFrame('throttlingException', { message: 'Too many tokens, please wait before trying again.' }), chunkFrame(events[1]!)]),
      call({}),
    );
    expect(await text(body)).toBe(
      sse('message_start', events[0]!) +
        sse('error', '{"type":"error","error":{"type":"rate_limit_error","message":"Too many tokens, please wait before trying again."}}'),
    );
  });

  it.each([
    ['serviceUnavailableException', 'overloaded_error', 'overloaded'],
    ['modelStreamErrorException', 'api_error', 'upstream'],
    ['validationException', 'invalid_request_error', 'invalid_request'],
  ])('maps %s to %s mid-stream, and fails the first read (so the client gets a status) before any event', async (exception, type, kind) => {
    const after = readBedrockPassthroughBody(streamOf([chunkFrame(events[0]!), exceptionFrame(exception, { message: 'm' })]), call({}));
    expect(await text(after)).toBe(sse('message_start', events[0]!) + sse('error', `{"type":"error","error":{"type":"${type}","message":"m"}}`));
    const first = readBedrockPassthroughBody(streamOf([exceptionFrame(exception, { message: 'm' })]), call({}));
    await expect(text(first)).rejects.toMatchObject({ brand: 'GatewayError', kind, message: 'm' });
  });

  it('ends with an error event on a corrupted frame or a chunk that is not an Anthropic event', async () => {
    const bad = chunkFrame(events[1]!);
    bad[bad.length - 1]! ^= 1;
    expect(await text(readBedrockPassthroughBody(streamOf([chunkFrame(events[0]!), bad]), call({})))).toBe(
      sse('message_start', events[0]!) +
        sse('error', '{"type":"error","error":{"type":"api_error","message":"Bedrock sent a malformed event stream: message CRC mismatch"}}'),
    );
    await expect(text(readBedrockPassthroughBody(streamOf([eventFrame('chunk', { bytes: btoa('not json') })]), call({})))).rejects.toMatchObject({
      kind: 'upstream',
      message: 'Bedrock sent a stream chunk that is not an Anthropic event',
    });
  });

  it('relays a non-streaming message untouched', async () => {
    const json = '{"id":"msg_bdrk_01","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}';
    expect(await text(readBedrockPassthroughBody(new Response(json), call({ stream: false })))).toBe(json);
  });

  it('answers count_tokens in Anthropic shape', async () => {
    expect(await text(readBedrockPassthroughBody(Response.json({ inputTokens: 1234 }), call({ action: 'count_tokens', stream: false })))).toBe('{"input_tokens":1234}');
  });

  it('errors a count_tokens answer without inputTokens before any byte, so no 200 carries an error body', async () => {
    for (const res of [Response.json({ tokens: 12 }), Response.json({ inputTokens: '12' }), new Response('not json')]) {
      const reading = text(readBedrockPassthroughBody(res, call({ action: 'count_tokens', stream: false })));
      await expect(reading).rejects.toMatchObject({ kind: 'upstream', message: 'Bedrock sent a token count without inputTokens' });
    }
  });
});
