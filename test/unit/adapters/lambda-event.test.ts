import { describe, expect, it } from 'vitest';
import {
  isBinaryBody,
  lambdaEventFormat,
  lambdaResultToResponse,
  readLambdaEvent,
  requestToLambdaEvent,
  writeLambdaResult,
} from '../../../adapters/lambda-event.ts';
import type { LambdaEventKind, LambdaEventV1, LambdaEventV2, LambdaHttpEvent } from '../../../adapters/lambda-types.ts';
import { loadJsonFixture } from '../../helpers/streams.ts';

const fixture = <T extends LambdaHttpEvent = LambdaHttpEvent>(name: string) => loadJsonFixture<T>(`lambda/${name}.json`);

/** What the gateway sees of a request. */
async function summary(request: Request) {
  return {
    method: request.method,
    url: request.url,
    headers: Object.fromEntries(request.headers),
    body: request.body ? await request.text() : null,
  };
}

const MESSAGES_BODY = '{"model":"acme.claude-sonnet-4-5-20250929-v1","max_tokens":256,"messages":[{"role":"user","content":"Héllo"}]}';

describe('lambdaEventFormat', () => {
  it.each([
    ['apigw-v1', 'v1'],
    ['apigw-v2', 'v2'],
    ['function-url', 'v2'],
    ['alb', 'alb'],
    ['alb-multi', 'alb'],
  ])('%s is payload %s', (name, format) => {
    expect(lambdaEventFormat(fixture(name))).toBe(format);
  });

  it('a REST event behind a custom-domain base path carries rawPath but is still v1', () => {
    const event = { ...fixture<LambdaEventV1>('apigw-v1'), rawPath: '/base/api/anthropic/v1/messages' };
    expect(lambdaEventFormat(event)).toBe('v1');
  });
});

describe('readLambdaEvent on AWS sample events', () => {
  it('REST v1: base64 body, multi-value headers win, decoded query values re-encoded', async () => {
    const event = fixture('apigw-v1');
    const before = structuredClone(event);
    const request = readLambdaEvent(event);
    expect(await summary(request)).toEqual({
      method: 'POST',
      url: 'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/api/anthropic/v1/messages?beta=true&note=a%20b%26c%3Dd&tag=x&tag=y',
      headers: {
        accept: 'application/json, text/event-stream',
        'anthropic-version': '2023-06-01',
        'cloudfront-forwarded-proto': 'https',
        'cloudfront-is-desktop-viewer': 'true',
        'cloudfront-viewer-country': 'US',
        'content-type': 'application/json',
        host: 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com',
        'user-agent': 'Anthropic/JS 1.12.0',
        via: '2.0 0f2d8a2b6c1a5e3e7d9f0b4c1e2a3d5f.cloudfront.net (CloudFront)',
        'x-amz-cf-id': 'cDehVQoZnx43VYQb9j2-nvCh-9z396Uhbp027Y2JvkCPNLmGJHqlaA==',
        'x-amzn-trace-id': 'Root=1-67891233-abcdef012345678912345678',
        'x-api-key': 'sk-switchyard-test-key',
        'x-forwarded-for': '192.0.2.10, 198.51.100.7',
        'x-forwarded-port': '443',
        'x-forwarded-proto': 'https',
      },
      body: MESSAGES_BODY,
    });
    expect(new URL(request.url).searchParams.getAll('note')).toEqual(['a b&c=d']);
    expect(event).toEqual(before);
  });

  it('HTTP API v2: rawQueryString as sent, cookies[] become the cookie header, no body on GET', async () => {
    expect(await summary(readLambdaEvent(fixture('apigw-v2')))).toEqual({
      method: 'GET',
      url: 'https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/api/openai/v1/models?limit=5&q=caf%C3%A9%20au%20lait&tag=x&tag=y',
      headers: {
        accept: 'application/json',
        authorization: 'Bearer sk-switchyard-test-key',
        'content-length': '0',
        cookie: 'session=3f2a9c; theme=dark',
        host: 'a1b2c3d4e5.execute-api.us-east-1.amazonaws.com',
        'user-agent': 'OpenAI/JS 6.30.1',
        'x-amzn-trace-id': 'Root=1-5e6722a7-cc56xmpl46db7ae02d4da47e',
        'x-forwarded-for': '203.0.113.5',
        'x-forwarded-port': '443',
        'x-forwarded-proto': 'https',
        'x-stainless-lang': 'js',
      },
      body: null,
    });
  });

  it('Function URL: plain-text JSON body and the method from requestContext.http', async () => {
    const event = fixture<LambdaEventV2>('function-url');
    const got = await summary(readLambdaEvent(event));
    expect(got.method).toBe('POST');
    expect(got.url).toBe('https://abcdefghijklmnopqrstuvwxyz012345.lambda-url.us-east-1.on.aws/api/anthropic/v1/messages?beta=true');
    expect(got.body).toBe(event.body);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.authorization).toBe('Bearer sk-switchyard-test-key');
  });

  it('ALB: host from the Host header, query values passed on still encoded (not encoded twice)', async () => {
    const request = readLambdaEvent(fixture('alb'));
    const got = await summary(request);
    expect(got).toMatchObject({
      method: 'GET',
      url: 'https://switchyard-alb-1234567890.us-east-1.elb.amazonaws.com/api/gemini/v1beta/models?key=sk-switchyard-test-key&pageToken=a%2Fb%3D%3D',
      body: null,
    });
    expect(new URL(request.url).searchParams.get('pageToken')).toBe('a/b==');
  });

  it('ALB multi-value mode: multiValueHeaders and multiValueQueryStringParameters, cookies joined with "; "', async () => {
    const got = await summary(readLambdaEvent(fixture('alb-multi')));
    expect(got).toEqual({
      method: 'POST',
      url: 'https://switchyard-alb-1234567890.us-east-1.elb.amazonaws.com/api/gemini/v1beta/models/acme.gemini-2.5-flash:streamGenerateContent?alt=sse&tag=x&tag=y%20z',
      headers: {
        accept: '*/*',
        'content-type': 'application/json',
        cookie: 'session=3f2a9c; theme=dark',
        host: 'switchyard-alb-1234567890.us-east-1.elb.amazonaws.com',
        'user-agent': 'google-genai-sdk/3.1.0 gl-node/v20.20.2',
        'x-amzn-trace-id': 'Root=1-5c536348-3d683b8b04734faae651f476',
        'x-forwarded-for': '72.12.164.125',
        'x-forwarded-port': '443',
        'x-forwarded-proto': 'https',
        'x-goog-api-key': 'sk-switchyard-test-key',
      },
      body: '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}]}',
    });
  });
});

describe('readLambdaEvent edge cases', () => {
  it('drops a named HTTP API stage from rawPath', () => {
    const event = fixture<LambdaEventV2>('apigw-v2');
    event.rawPath = '/prod/api/openai/v1/models';
    event.requestContext.stage = 'prod';
    expect(new URL(readLambdaEvent(event).url).pathname).toBe('/api/openai/v1/models');
  });

  it('accepts null headers and query maps', () => {
    const event = { ...fixture<LambdaEventV1>('apigw-v1'), headers: null, multiValueHeaders: null, queryStringParameters: null, multiValueQueryStringParameters: null };
    const request = readLambdaEvent(event);
    expect(request.url).toBe('https://a1b2c3d4e5.execute-api.us-east-1.amazonaws.com/api/anthropic/v1/messages');
  });

  it('percent-encodes header values that are not ASCII instead of failing', () => {
    const event = fixture<LambdaEventV2>('apigw-v2');
    event.headers['x-title'] = 'Café ☕';
    expect(readLambdaEvent(event).headers.get('x-title')).toBe('Caf%C3%A9%20%E2%98%95');
  });

  it('ignores a body on GET and hands the abort signal to the request', () => {
    const controller = new AbortController();
    const event = { ...fixture<LambdaEventV2>('apigw-v2'), body: 'stray' };
    const request = readLambdaEvent(event, { signal: controller.signal });
    expect(request.body).toBeNull();
    controller.abort();
    expect(request.signal.aborted).toBe(true);
  });

  it('throws on a malformed event (the handler turns that into a 400)', () => {
    expect(() => readLambdaEvent({ httpMethod: 'GET', path: '/' } as unknown as LambdaHttpEvent)).toThrow(TypeError);
  });
});

function jsonResponse(status = 200, extra: Record<string, string> = {}) {
  const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'req_1', 'transfer-encoding': 'chunked', ...extra });
  headers.append('set-cookie', 'a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT');
  headers.append('set-cookie', 'b=2');
  return new Response('{"ok":true}', { status, headers });
}
const COOKIES = ['a=1; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT', 'b=2'];
const HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_1' };

describe('writeLambdaResult', () => {
  it('v1: Set-Cookie in multiValueHeaders, the rest in headers, hop-by-hop headers dropped', async () => {
    expect(await writeLambdaResult(jsonResponse(), fixture('apigw-v1'))).toEqual({
      statusCode: 200, headers: HEADERS, multiValueHeaders: { 'set-cookie': COOKIES }, body: '{"ok":true}', isBase64Encoded: false,
    });
  });

  it.each(['apigw-v2', 'function-url'])('%s: Set-Cookie in cookies[]', async (name) => {
    expect(await writeLambdaResult(jsonResponse(201), fixture(name))).toEqual({
      statusCode: 201, headers: HEADERS, cookies: COOKIES, body: '{"ok":true}', isBase64Encoded: false,
    });
  });

  it('ALB: statusDescription, single-value headers (cookies can only be joined)', async () => {
    expect(await writeLambdaResult(jsonResponse(404), fixture('alb'))).toEqual({
      statusCode: 404, statusDescription: '404 Not Found', headers: { ...HEADERS, 'set-cookie': COOKIES.join(', ') }, body: '{"ok":true}', isBase64Encoded: false,
    });
  });

  it('ALB multi-value mode: every header in multiValueHeaders', async () => {
    expect(await writeLambdaResult(jsonResponse(413), fixture('alb-multi'))).toEqual({
      statusCode: 413,
      statusDescription: '413 Payload Too Large',
      multiValueHeaders: { 'content-type': ['application/json'], 'x-request-id': ['req_1'], 'set-cookie': COOKIES },
      body: '{"ok":true}',
      isBase64Encoded: false,
    });
  });

  it('base64-encodes binary bodies and keeps SSE as text', async () => {
    const png = new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]), { headers: { 'content-type': 'image/png' } });
    expect(await writeLambdaResult(png, fixture('apigw-v2'))).toMatchObject({ body: 'iVBORwD/', isBase64Encoded: true });
    const sse = new Response('event: ping\ndata: {}\n\n', { headers: { 'content-type': 'text/event-stream; charset=utf-8' } });
    expect(await writeLambdaResult(sse, fixture('apigw-v1'))).toMatchObject({ body: 'event: ping\ndata: {}\n\n', isBase64Encoded: false });
  });

  it('a body-less response is an empty text body', async () => {
    expect(await writeLambdaResult(new Response(null, { status: 204 }), fixture('apigw-v2'))).toEqual({
      statusCode: 204, headers: {}, body: '', isBase64Encoded: false,
    });
  });
});

describe('isBinaryBody', () => {
  it.each([
    ['application/json', null, false],
    ['application/vnd.api+json', null, false],
    ['text/event-stream; charset=utf-8', null, false],
    ['text/plain', null, false],
    ['application/xml', null, false],
    ['image/svg+xml', null, false],
    ['application/x-www-form-urlencoded', null, false],
    ['application/octet-stream', null, true],
    ['image/png', null, true],
    ['application/vnd.amazon.eventstream', null, true],
    ['application/json', 'gzip', true],
    ['application/json', 'br', true],
  ])('%s (content-encoding %s) → %s', (type, encoding, binary) => {
    const headers = new Headers({ 'content-type': type });
    if (encoding) headers.set('content-encoding', encoding);
    expect(isBinaryBody(headers, 10)).toBe(binary);
  });

  it('no content type: binary only when there is a body', () => {
    expect(isBinaryBody(new Headers(), 0)).toBe(false);
    expect(isBinaryBody(new Headers(), 3)).toBe(true);
  });
});

describe('requestToLambdaEvent → readLambdaEvent round trip', () => {
  const kinds: LambdaEventKind[] = ['apigw-v1', 'apigw-v2', 'alb', 'alb-multi', 'function-url'];

  it.each(kinds)('%s keeps method, path, query, headers, cookies and body', async (kind) => {
    const original = () =>
      new Request('http://127.0.0.1:4321/api/anthropic/v1/messages?beta=true&note=a%20b%26c&tag=x&tag=y', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'k', cookie: 'a=1; b=2', 'user-agent': 'test' },
        body: MESSAGES_BODY,
      });
    const event = await requestToLambdaEvent(original(), kind);
    expect(event.isBase64Encoded).toBe(kind === 'apigw-v1');
    const expected = await summary(original());
    const got = await summary(readLambdaEvent(event));
    let url = expected.url.replace('http://127.0.0.1:4321', kind.startsWith('alb') ? 'https://localhost' : 'https://127.0.0.1:4321');
    // Without multi-value mode ALB keeps only the last value of a repeated query key.
    if (kind === 'alb') url = url.replace('tag=x&', '');
    expect(got).toEqual({ ...expected, url });
  });

  it('binary bodies travel base64 on every kind', async () => {
    for (const kind of kinds) {
      const event = await requestToLambdaEvent(new Request('http://h/x', { method: 'PUT', body: new Uint8Array([0, 1, 254, 255]) }), kind);
      expect(event.isBase64Encoded).toBe(true);
      expect(new Uint8Array(await readLambdaEvent(event).arrayBuffer())).toEqual(new Uint8Array([0, 1, 254, 255]));
    }
  });
});

describe('lambdaResultToResponse', () => {
  it('merges headers and multiValueHeaders (v1)', async () => {
    const res = lambdaResultToResponse({ statusCode: 200, headers: { 'content-type': 'application/json', vary: 'x' }, multiValueHeaders: { 'set-cookie': COOKIES, vary: ['a', 'b'] }, body: '{}', isBase64Encoded: false });
    expect(res.headers.getSetCookie()).toEqual(COOKIES);
    expect(res.headers.get('vary')).toBe('a, b');
    expect(await res.json()).toEqual({});
  });

  it('cookies[] and base64 bodies (v2)', async () => {
    const res = lambdaResultToResponse({ statusCode: 201, headers: { 'content-type': 'image/png' }, cookies: ['c=3'], body: 'iVBORwD/', isBase64Encoded: true });
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['c=3']);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]));
  });

  it('the ALB status description becomes the status text', () => {
    const res = lambdaResultToResponse({ statusCode: 529, statusDescription: '529 Site Overloaded', headers: {}, body: '', isBase64Encoded: false });
    expect([res.status, res.statusText]).toEqual([529, 'Site Overloaded']);
  });

  it('writeLambdaResult → lambdaResultToResponse gives back the response for every kind', async () => {
    for (const name of ['apigw-v1', 'apigw-v2', 'alb-multi', 'function-url']) {
      const res = lambdaResultToResponse(await writeLambdaResult(jsonResponse(200), fixture(name)));
      expect(Object.fromEntries([...res.headers].filter(([name]) => name !== 'set-cookie'))).toEqual(HEADERS);
      expect(res.headers.getSetCookie()).toEqual(COOKIES);
      expect(await res.text()).toBe('{"ok":true}');
    }
  });
});
