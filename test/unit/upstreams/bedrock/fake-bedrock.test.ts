import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTarget } from '../../../../core/catalog.ts';
import type { ChatRequest, StreamEvent } from '../../../../core/ir.ts';
import { createBedrockUpstream } from '../../../../core/upstreams/bedrock/index.ts';
import type { BedrockConfig } from '../../../../core/upstreams/bedrock/sign.ts';
import type { UpstreamRequest } from '../../../../core/upstreams/types.ts';
import { chunkFrame, eventFrame, exceptionFrame } from '../../../helpers/bedrock-frames.ts';
import { FAKE_CREDENTIALS, type FakeBedrock, startFakeBedrock } from '../../../helpers/fake-bedrock.ts';
import { collect } from '../../../helpers/streams.ts';
import { jsonBody } from '../../../helpers/json-body.ts';

let fake: FakeBedrock;
beforeAll(async () => {
  fake = await startFakeBedrock({ region: 'us-west-2', sessionToken: 'SESSION/TOKEN==', apiKey: 'bedrock-key' });
});
afterAll(() => fake.close());

const OSS = 'openai.gpt-oss-120b-1:0';
const CLAUDE = 'us.anthropic.claude-haiku-4-5-20251001-v1:0';

function setup(over: Partial<BedrockConfig> = {}) {
  const config: BedrockConfig = { type: 'bedrock', region: 'us-west-2', baseUrl: fake.url, ...FAKE_CREDENTIALS, sessionToken: 'SESSION/TOKEN==', ...over };
  const upstream = createBedrockUpstream('aws', config);
  const target = (model: string): RouteTarget => ({ provider: 'aws', config, upstreamModel: model });
  return { upstream, target };
}

const request = (model: string, stream: boolean): ChatRequest => ({
  model,
  system: [],
  messages: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
  stream,
  maxTokens: 50,
  source: { family: 'openai', extra: {} },
});

const sendWire = (wire: UpstreamRequest) => fetch(wire.url, { method: 'POST', headers: wire.headers, body: wire.body as string });

describe('fake Bedrock round trips', () => {
  it('streams ConverseStream frames into StreamEvents over real HTTP', async () => {
    const { upstream, target } = setup();
    fake.reply(() => ({
      delayMs: 2,
      frames: [
        eventFrame('messageStart', { role: 'assistant' }),
        eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } }),
        eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
        eventFrame('messageStop', { stopReason: 'end_turn' }),
        eventFrame('metadata', { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 } }),
      ],
    }));
    const req = request(OSS, true);
    const res = await sendWire(await upstream.writeRequest(req, target(OSS), () => {}));
    expect(res.status).toBe(200);
    const events = await collect(res.body!.pipeThrough(upstream.readStream(req)));
    expect(events.map((e: StreamEvent) => e.type)).toEqual(['start', 'block-start', 'text-delta', 'block-end', 'finish']);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop', usage: { inputTokens: 3, outputTokens: 1 } });
    const call = fake.calls.at(-1)!;
    expect(call).toMatchObject({ operation: 'converse-stream', modelId: OSS, path: '/model/openai.gpt-oss-120b-1%3A0/converse-stream', auth: 'sigv4' });
    expect(call.json).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }], inferenceConfig: { maxTokens: 50 } });
  });

  it('answers InvokeModel with JSON read by the Anthropic reader', async () => {
    const { upstream, target } = setup();
    fake.reply(() => ({ json: { id: 'msg_bdrk_1', type: 'message', role: 'assistant', model: 'claude-haiku-4-5', content: [{ type: 'text', text: 'Hi!' }], stop_reason: 'end_turn', usage: { input_tokens: 4, output_tokens: 2 } } }));
    const req = request(CLAUDE, false);
    const res = await sendWire(await upstream.writeRequest(req, target(CLAUDE), () => {}));
    expect(upstream.readResponse(await res.json(), req)).toEqual({
      id: 'msg_bdrk_1', model: 'claude-haiku-4-5', parts: [{ type: 'text', text: 'Hi!' }], finish: 'stop', usage: { inputTokens: 4, outputTokens: 2 },
    });
    expect(fake.calls.at(-1)).toMatchObject({ operation: 'invoke', modelId: CLAUDE });
  });

  it('relays InvokeModelWithResponseStream as Anthropic SSE on the passthrough path', async () => {
    const { upstream, target } = setup();
    fake.reply(() => ({
      frames: [
        chunkFrame({ type: 'message_start', message: { id: 'msg_bdrk_2', type: 'message', role: 'assistant', model: 'claude', content: [], stop_reason: null, usage: { input_tokens: 1, output_tokens: 1 } } }),
        exceptionFrame('throttlingException', { message: 'Too many requests, please wait before trying again.' }),
      ],
    }));
    const call = { target: target(CLAUDE), source: jsonBody({ model: 'x', max_tokens: 5, stream: true, messages: [] }), headers: new Headers(), action: 'messages' as const, stream: true };
    const res = await sendWire(await upstream.passthrough!.writeRequest(call));
    const text = await new Response(upstream.passthrough!.readBody!(res, call)).text();
    expect(text).toBe(
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_bdrk_2","type":"message","role":"assistant","model":"claude","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n' +
        'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"Too many requests, please wait before trying again."}}\n\n',
    );
    expect(fake.calls.at(-1)).toMatchObject({ operation: 'invoke-with-response-stream', json: { anthropic_version: 'bedrock-2023-05-31', max_tokens: 5, messages: [] } });
  });

  it('maps an HTTP ThrottlingException', async () => {
    const { upstream, target } = setup();
    fake.reply(() => ({ error: { type: 'ThrottlingException', message: 'Rate exceeded', status: 429 } }));
    const res = await sendWire(await upstream.writeRequest(request(OSS, false), target(OSS), () => {}));
    expect(await upstream.readError(res)).toMatchObject({ kind: 'rate_limit', status: 429, message: 'Rate exceeded' });
  });

  it('rejects a wrong secret, a missing session token and a wrong key like AWS, and accepts a bearer API key', async () => {
    fake.reply(() => ({ json: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn' } }));
    const before = fake.calls.length;
    for (const over of [{ secretAccessKey: 'wrong' }, { sessionToken: undefined }, { accessKeyId: 'AKIDOTHER' }] as Partial<BedrockConfig>[]) {
      const { upstream, target } = setup(over);
      const res = await sendWire(await upstream.writeRequest(request(OSS, false), target(OSS), () => {}));
      expect(res.status).toBe(403);
      expect(await upstream.readError(res)).toMatchObject({ kind: 'internal', status: 500, message: "Bedrock rejected the gateway's AWS credentials" });
    }
    expect(fake.rejected.slice(-3).map((r) => r.split('\n')[0])).toEqual([
      'The request signature we calculated does not match the signature you provided.',
      'Header x-amz-security-token must be signed',
      'The security token included in the request is invalid.',
    ]);
    expect(fake.calls.length).toBe(before);

    const { upstream, target } = setup({ accessKeyId: undefined, secretAccessKey: undefined, apiKey: 'bedrock-key' });
    const res = await sendWire(await upstream.writeRequest(request(OSS, false), target(OSS), () => {}));
    expect(res.status).toBe(200);
    expect(fake.calls.at(-1)!.auth).toBe('bearer');
  });

  it('verifies ARN model ids, whose canonical path double-encodes ":" and "/"', async () => {
    const arn = 'arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/abc123';
    const { upstream, target } = setup();
    fake.reply(() => ({ json: { output: { message: { role: 'assistant', content: [{ text: 'ok' }] } }, stopReason: 'end_turn' } }));
    const res = await sendWire(await upstream.writeRequest(request(arn, false), target(arn), () => {}));
    expect(res.status).toBe(200);
    expect(fake.calls.at(-1)).toMatchObject({ modelId: arn, path: `/model/${encodeURIComponent(arn)}/converse` });
  });
});
