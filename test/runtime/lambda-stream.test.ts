import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestToLambdaEvent } from '../../adapters/lambda-event.ts';
import type { LambdaHttpEvent } from '../../adapters/lambda-types.ts';
import { createLambdaHandlers, startLambdaGateway } from '../../adapters/lambda.ts';
import { sleep } from '../helpers/fake-upstream.ts';
import { TEST_KEY } from '../helpers/gateway.ts';
import { lambdaContext, RecordedResponseStream, stubAwsLambda } from './lambda-stub.ts';

stubAwsLambda();

const event = (path = '/api/anthropic/v1/messages') =>
  requestToLambdaEvent(new Request(`https://abc.lambda-url.us-east-1.on.aws${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 'function-url');
const sse = (body: ReadableStream<Uint8Array> | null, status = 200) => {
  const headers = new Headers({ 'content-type': 'text/event-stream', 'x-request-id': 'req_1' });
  headers.append('set-cookie', 'a=1');
  headers.append('set-cookie', 'b=2');
  return new Response(body, { status, headers });
};
const bytes = (text: string) => new TextEncoder().encode(text);
const finished = (stream: RecordedResponseStream) => stream.writableFinished;

afterEach(() => vi.restoreAllMocks());

describe('streamHandler with a stubbed awslambda global', () => {
  it('is wrapped by awslambda.streamifyResponse', () => {
    const { streamHandler } = createLambdaHandlers({ fetch: async () => new Response('') });
    expect((streamHandler as unknown as { streamified?: boolean }).streamified).toBe(true);
  });

  it('sends the prelude, then writes every chunk before the next one exists', async () => {
    const enqueuedAt: number[] = [];
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < 5; i++) {
          await sleep(40);
          enqueuedAt.push(Date.now());
          controller.enqueue(bytes(`data: ${i}\n\n`));
        }
        controller.close();
      },
    });
    const { streamHandler } = createLambdaHandlers({ fetch: async () => sse(body) });
    const stream = new RecordedResponseStream();
    await streamHandler(await event(), stream, lambdaContext());
    expect(stream.metadata).toEqual({ statusCode: 200, headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req_1' }, cookies: ['a=1', 'b=2'] });
    expect(stream.chunks.map((c) => new TextDecoder().decode(c.bytes))).toEqual(['data: 0\n\n', 'data: 1\n\n', 'data: 2\n\n', 'data: 3\n\n', 'data: 4\n\n']);
    for (let i = 0; i < 4; i++) expect(stream.chunks[i]!.at).toBeLessThanOrEqual(enqueuedAt[i + 1]!);
    expect(finished(stream)).toBe(true);
  });

  it('a closed response stream cancels the body and aborts the request signal', async () => {
    let cancelled = false;
    let signal: AbortSignal | undefined;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => controller.enqueue(bytes('event: ping\ndata: {}\n\n')),
      cancel: () => void (cancelled = true),
    });
    const { streamHandler } = createLambdaHandlers({
      fetch: async (request) => {
        signal = request.signal;
        return sse(body);
      },
    });
    const stream = new RecordedResponseStream();
    const done = streamHandler(await event(), stream, lambdaContext());
    while (stream.chunks.length === 0) await sleep(5);
    stream.destroy();
    await done;
    expect(cancelled).toBe(true);
    expect(signal?.aborted).toBe(true);
  });

  it('a stream error (not just close) also cancels, and does not crash', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({ start: (c) => c.enqueue(bytes('x')), cancel: () => void (cancelled = true) });
    const { streamHandler } = createLambdaHandlers({ fetch: async () => sse(body) });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const stream = new RecordedResponseStream();
    const done = streamHandler(await event(), stream, lambdaContext());
    while (stream.chunks.length === 0) await sleep(5);
    stream.destroy(new Error('socket hang up'));
    await done;
    expect(cancelled).toBe(true);
  });

  it('waits for drain: reads stay close to what the destination has taken', async () => {
    const CHUNK = 16 * 1024;
    const COUNT = 96;
    let emitted = 0;
    let written = 0;
    let maxAhead = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (emitted++ < COUNT) controller.enqueue(new Uint8Array(CHUNK));
        else controller.close();
      },
    }, { highWaterMark: 0 });
    const { streamHandler } = createLambdaHandlers({ fetch: async () => new Response(body) });
    const stream = new RecordedResponseStream({
      write: (chunk, done) => {
        maxAhead = Math.max(maxAhead, emitted - written / CHUNK);
        setImmediate(() => {
          written += chunk.byteLength;
          done();
        });
      },
    }, CHUNK);
    await streamHandler(await event(), stream, lambdaContext());
    expect(written).toBe(CHUNK * COUNT);
    expect(maxAhead).toBeLessThan(8);
    expect(finished(stream)).toBe(true);
  });

  it('a body-less response still sends its prelude (one empty write)', async () => {
    const { streamHandler } = createLambdaHandlers({ fetch: async () => new Response(null, { status: 204 }) });
    const stream = new RecordedResponseStream();
    await streamHandler(await event(), stream, lambdaContext());
    expect(stream.metadata).toEqual({ statusCode: 204, headers: {}, cookies: [] });
    expect(stream.chunks.map((c) => c.bytes.byteLength)).toEqual([0]);
    expect(finished(stream)).toBe(true);
  });

  it('a body that fails mid-stream ends the response without rejecting', async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes('data: 1\n\n'));
        controller.error(new Error('upstream reset'));
      },
    });
    const log = vi.spyOn(console, 'error').mockImplementation(() => {});
    const { streamHandler } = createLambdaHandlers({ fetch: async () => sse(body) });
    const stream = new RecordedResponseStream();
    await expect(streamHandler(await event(), stream, lambdaContext())).resolves.toBeUndefined();
    expect(finished(stream)).toBe(true);
    expect(log.mock.calls.flat().join(' ')).toContain('upstream reset');
  });

  it('a malformed event is a 400, not a crash', async () => {
    const { streamHandler } = createLambdaHandlers({ fetch: async () => new Response('unreachable') });
    const stream = new RecordedResponseStream();
    await streamHandler({ rawPath: '/x' } as unknown as LambdaHttpEvent, stream, lambdaContext());
    expect(stream.metadata?.statusCode).toBe(400);
  });
});

describe('handler (buffered)', () => {
  it('a malformed event is a 400 result', async () => {
    const { handler } = createLambdaHandlers({ fetch: async () => new Response('unreachable') });
    expect(await handler({ httpMethod: 'GET' } as unknown as LambdaHttpEvent)).toMatchObject({ statusCode: 400, body: 'Bad request' });
  });

  it('builds the gateway once; a failed start is retried by the next invocation', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let calls = 0;
    const { handler } = createLambdaHandlers(async () => {
      if (++calls === 1) throw new Error('secret not there yet');
      return { fetch: async () => Response.json({ ok: true }) };
    });
    expect((await handler(await event())).statusCode).toBe(500);
    expect(await handler(await event())).toMatchObject({ statusCode: 200, body: '{"ok":true}' });
    await handler(await event());
    expect(calls).toBe(2);
  });
});

describe('startLambdaGateway', () => {
  const list = async (env: Record<string, string>) => {
    const { handler } = createLambdaHandlers(() => startLambdaGateway(env));
    const request = new Request('https://x.lambda-url.us-east-1.on.aws/api/openai/v1/models', { headers: { authorization: `Bearer ${env.SWITCHYARD_KEY ?? TEST_KEY}` } });
    const result = await handler(await requestToLambdaEvent(request, 'function-url'));
    return { status: result.statusCode, ids: result.statusCode === 200 ? (JSON.parse(result.body).data as Array<{ id: string }>).map((m) => m.id) : [] };
  };
  const doc = { keys: [{ id: 'ci', key: '${SY_TEST_KEY}' }], providers: { oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } }, models: [{ id: 'gpt-oss-20b', routes: [{ provider: 'oss', model: 'gpt-oss-20b' }] }] };

  it('reads SWITCHYARD_CONFIG_JSON, with ${NAME} taken from the environment', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'log').mockImplementation(() => {});
    expect(await list({ SWITCHYARD_CONFIG_JSON: JSON.stringify(doc), SY_TEST_KEY: TEST_KEY })).toEqual({ status: 200, ids: ['gpt-oss-20b'] });
  });

  it('reads the SWITCHYARD_CONFIG file first', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(console, 'log').mockImplementation(() => {});
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-lambda-'));
    try {
      writeFileSync(join(dir, 'switchyard.json'), JSON.stringify({ ...doc, models: [{ id: 'from-file', routes: [{ provider: 'oss', model: 'm' }] }] }));
      const env = { SWITCHYARD_CONFIG: join(dir, 'switchyard.json'), SWITCHYARD_CONFIG_JSON: JSON.stringify(doc), SY_TEST_KEY: TEST_KEY };
      expect(await list(env)).toEqual({ status: 200, ids: ['from-file'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('without a config, the function role credentials give a Bedrock provider', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const gateway = await startLambdaGateway({
      SWITCHYARD_KEY: TEST_KEY, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'ASIAEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token',
    });
    expect(gateway.config.providers.bedrock).toMatchObject({ type: 'bedrock', region: 'eu-west-1', accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' });
    expect(gateway.catalog.models.map((m) => m.id)).toContain('gpt-oss-120b');
  });

  it('refuses to invent a key (each container would make a different one)', async () => {
    await expect(startLambdaGateway({ ANTHROPIC_API_KEY: 'a' })).rejects.toThrow(/SWITCHYARD_KEY/);
    await expect(startLambdaGateway({ SWITCHYARD_CONFIG_JSON: '{nope' })).rejects.toThrow(/SWITCHYARD_CONFIG_JSON is not valid JSON/);
  });
});
