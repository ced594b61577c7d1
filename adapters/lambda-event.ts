/** @see https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-lambda-proxy-integrations.html */
import type {
  LambdaEventAlb,
  LambdaEventFormat,
  LambdaEventKind,
  LambdaEventV1,
  LambdaEventV2,
  LambdaHttpEvent,
  LambdaResult,
  LambdaResultAlb,
} from './lambda-types.ts';

/**
 * Which payload an event is. A REST (v1) event behind a custom domain's base-path mapping carries
 * `rawPath` too, so payload 2.0 is recognised by `rawPath` and `requestContext.http` together.
 */
export function lambdaEventFormat(event: LambdaHttpEvent): LambdaEventFormat {
  const ctx = (event as { requestContext?: object }).requestContext;
  if (ctx && 'elb' in ctx) return 'alb';
  if ('rawPath' in event && ctx && 'http' in ctx) return 'v2';
  return 'v1';
}

/** A Lambda HTTP event → web Request. Throws TypeError on a malformed event (the handler answers 400). */
export function readLambdaEvent(event: LambdaHttpEvent, init: { signal?: AbortSignal } = {}): Request {
  const format = lambdaEventFormat(event);
  const headers = readHeaders(event, format);
  const method = format === 'v2' ? (event as LambdaEventV2).requestContext.http.method : (event as LambdaEventV1).httpMethod;
  const host = (event as LambdaEventV1).requestContext.domainName ?? headers.get('host') ?? '';
  const url = `https://${/^[\w.-]+(:\d+)?$/.test(host) ? host : 'localhost'}${readPath(event, format)}${readQuery(event, format)}`;
  const body = event.body ? (event.isBase64Encoded ? fromBase64(event.body) : event.body) : undefined;
  const hasBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
  return new Request(url, { method, headers, body: hasBody ? (body as BodyInit) : undefined, signal: init.signal });
}

function readHeaders(event: LambdaHttpEvent, format: LambdaEventFormat): Headers {
  const headers = new Headers();
  // The multi-value map holds every value of a repeated header; `headers` only the last one.
  const multi = format === 'v2' ? undefined : (event as LambdaEventV1).multiValueHeaders;
  for (const [name, values] of Object.entries(multi ?? {})) {
    if (!values?.length) continue;
    // Several Cookie headers mean one cookie list, whose separator is "; " rather than ", ".
    if (name.toLowerCase() === 'cookie') headers.set(name, values.map(headerValue).join('; '));
    else for (const value of values) headers.append(name, headerValue(value));
  }
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined && !headers.has(name)) headers.set(name, headerValue(value));
  }
  const cookies = format === 'v2' ? (event as LambdaEventV2).cookies : undefined;
  if (cookies?.length) headers.set('cookie', cookies.join('; '));
  return headers;
}

/** Header values must be byte strings; AWS hands over decoded Unicode, which is kept readable this way. */
function headerValue(value: string): string {
  return /[^\x00-\x7f]/.test(value) ? encodeURIComponent(value) : value;
}

function readPath(event: LambdaHttpEvent, format: LambdaEventFormat): string {
  let path = format === 'v2' ? (event as LambdaEventV2).rawPath : (event as LambdaEventV1).path;
  if (format === 'v2') {
    // HTTP API puts a named stage in front of the route path; routes are matched without it.
    const { stage } = (event as LambdaEventV2).requestContext;
    if (stage && stage !== '$default' && (path === `/${stage}` || path.startsWith(`/${stage}/`))) path = path.slice(stage.length + 1) || '/';
  }
  return path.startsWith('/') ? path : `/${path}`;
}

function readQuery(event: LambdaHttpEvent, format: LambdaEventFormat): string {
  if (format === 'v2') {
    const raw = (event as LambdaEventV2).rawQueryString;
    return raw ? `?${raw}` : '';
  }
  const { multiValueQueryStringParameters: multi, queryStringParameters: single } = event as LambdaEventV1 | LambdaEventAlb;
  const pairs: string[] = [];
  const add = (key: string, value: string) =>
    // API Gateway decodes query values; ALB passes them on exactly as the client sent them.
    pairs.push(format === 'v1' ? `${encodeURIComponent(key)}=${encodeURIComponent(value)}` : `${key}=${value}`);
  if (multi) for (const [key, values] of Object.entries(multi)) for (const value of values ?? []) add(key, value);
  else for (const [key, value] of Object.entries(single ?? {})) if (value !== undefined) add(key, value);
  return pairs.length ? `?${pairs.join('&')}` : '';
}

/** Headers that describe a connection, not a buffered body. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade']);

/** A web Response → the result object the event's source expects (the body is read whole). */
export async function writeLambdaResult(response: Response, event: LambdaHttpEvent): Promise<LambdaResult> {
  const format = lambdaEventFormat(event);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const binary = isBinaryBody(response.headers, bytes.byteLength);
  const base = { statusCode: response.status, body: binary ? toBase64(bytes) : new TextDecoder().decode(bytes), isBase64Encoded: binary };
  const { headers, cookies } = readResponseHeaders(response.headers);
  if (format === 'v2') return cookies.length ? { ...base, headers, cookies } : { ...base, headers };
  if (format === 'v1') return cookies.length ? { ...base, headers, multiValueHeaders: { 'set-cookie': cookies } } : { ...base, headers };
  const alb: Omit<LambdaResultAlb, 'headers'> = { ...base, statusDescription: `${response.status} ${response.statusText || REASON[response.status] || ''}`.trim() };
  if ((event as LambdaEventAlb).multiValueHeaders) {
    const multiValueHeaders: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(headers)) multiValueHeaders[name] = [value];
    if (cookies.length) multiValueHeaders['set-cookie'] = cookies;
    return { ...alb, multiValueHeaders };
  }
  // Single-value ALB mode has one slot per name: cookies can only travel joined.
  return cookies.length ? { ...alb, headers: { ...headers, 'set-cookie': cookies.join(', ') } } : { ...alb, headers };
}

/** Response headers as a plain map without Set-Cookie (returned apart) and hop-by-hop names. */
export function readResponseHeaders(from: Headers): { headers: Record<string, string>; cookies: string[] } {
  const headers: Record<string, string> = {};
  from.forEach((value, name) => {
    if (name !== 'set-cookie' && !HOP_BY_HOP.has(name)) headers[name] = value;
  });
  return { headers, cookies: from.getSetCookie() };
}

const TEXTUAL = /^text\/|^application\/([\w.-]+\+)?(json|xml|javascript|x-ndjson|x-www-form-urlencoded)\b|^image\/svg\+xml|;\s*charset=/i;

/** API Gateway and ALB carry bodies as strings: anything not known to be text goes base64. */
export function isBinaryBody(headers: Headers, size: number): boolean {
  if (/^(gzip|deflate|compress|br|zstd)/.test(headers.get('content-encoding') ?? '')) return true;
  const type = headers.get('content-type');
  return type === null ? size > 0 : !TEXTUAL.test(type);
}

const REASON: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden',
  404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 409: 'Conflict', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests', 499: 'Client Closed Request',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable',
  504: 'Gateway Timeout', 529: 'Site Overloaded',
};

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

// ---- The reverse direction, for tests: run any HTTP request through the Lambda adapter. ----

/**
 * A web Request → the event `kind` would deliver. REST (v1) bodies are always base64, as API
 * Gateway sends them when every media type is binary (deploy/template.yaml sets that).
 */
export async function requestToLambdaEvent(request: Request, kind: LambdaEventKind): Promise<LambdaHttpEvent> {
  const url = new URL(request.url);
  const bytes = new Uint8Array(await request.arrayBuffer());
  const base64 = kind === 'apigw-v1' || isBinaryBody(request.headers, bytes.byteLength);
  const body = bytes.byteLength === 0 ? null : base64 ? toBase64(bytes) : new TextDecoder().decode(bytes);
  const method = request.method;
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => (headers[name] = value));
  const multiHeaders = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]]));
  const raw = url.search.slice(1).split('&').filter(Boolean).map((pair) => {
    const at = pair.indexOf('=');
    return at < 0 ? [pair, ''] : [pair.slice(0, at), pair.slice(at + 1)];
  }) as Array<[string, string]>;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s.replace(/\+/g, ' '));
    } catch {
      return s; // a stray "%" is kept as sent
    }
  };
  const now = Date.now();
  const requestId = crypto.randomUUID();
  if (kind === 'alb' || kind === 'alb-multi') {
    const event: LambdaEventAlb = {
      requestContext: { elb: { targetGroupArn: 'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/switchyard/6d0ecf831eec9f09' } },
      httpMethod: method, path: url.pathname, body, isBase64Encoded: body !== null && base64,
    };
    if (kind === 'alb') return { ...event, headers, queryStringParameters: Object.fromEntries(raw) };
    return { ...event, multiValueHeaders: multiHeaders, multiValueQueryStringParameters: groupPairs(raw) };
  }
  const decoded = raw.map(([k, v]) => [decode(k), decode(v)] as [string, string]);
  if (kind === 'apigw-v1') {
    return {
      resource: '/{proxy+}', path: url.pathname, httpMethod: method, headers, multiValueHeaders: multiHeaders,
      queryStringParameters: decoded.length ? Object.fromEntries(decoded) : null,
      multiValueQueryStringParameters: decoded.length ? groupPairs(decoded) : null,
      pathParameters: { proxy: url.pathname.slice(1) }, stageVariables: null,
      requestContext: {
        accountId: '123456789012', apiId: 'a1b2c3d4e5', domainName: url.host, domainPrefix: 'a1b2c3d4e5', httpMethod: method,
        path: `/prod${url.pathname}`, protocol: 'HTTP/1.1', requestId, requestTimeEpoch: now, resourcePath: '/{proxy+}', stage: 'prod',
        identity: { sourceIp: '192.0.2.1', userAgent: headers['user-agent'] ?? null },
      },
      body, isBase64Encoded: body !== null,
    };
  }
  const { cookie, ...rest } = headers;
  const grouped = groupPairs(decoded);
  const domainPrefix = kind === 'function-url' ? 'a1b2c3d4e5f6g7h8i9j0' : 'a1b2c3d4e5';
  const event: LambdaEventV2 = {
    version: '2.0', routeKey: '$default', rawPath: url.pathname, rawQueryString: url.search.slice(1), headers: rest,
    requestContext: {
      accountId: kind === 'function-url' ? 'anonymous' : '123456789012', apiId: domainPrefix, domainName: url.host, domainPrefix,
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: headers['user-agent'] ?? '' },
      requestId, routeKey: '$default', stage: '$default', timeEpoch: now,
    },
    isBase64Encoded: body !== null && base64,
  };
  if (cookie) event.cookies = cookie.split(/;\s*/).filter(Boolean);
  if (decoded.length) event.queryStringParameters = Object.fromEntries(Object.entries(grouped).map(([k, v]) => [k, v.join(',')]));
  if (body !== null) event.body = body;
  return event;
}

function groupPairs(pairs: Array<[string, string]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [key, value] of pairs) (out[key] ??= []).push(value);
  return out;
}

/** A Lambda result → the web Response the client of API Gateway, ALB or a Function URL sees. */
export function lambdaResultToResponse(result: LambdaResult): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(result.headers ?? {})) headers.set(name, value);
  // Both maps are merged; a name in multiValueHeaders keeps only those values.
  const multi = 'multiValueHeaders' in result ? result.multiValueHeaders : undefined;
  for (const [name, values] of Object.entries(multi ?? {})) {
    headers.delete(name);
    for (const value of values) headers.append(name, value);
  }
  for (const cookie of ('cookies' in result ? result.cookies : undefined) ?? []) headers.append('set-cookie', cookie);
  const status = result.statusCode;
  const empty = status === 204 || status === 304 || (status >= 100 && status < 200);
  const body = empty ? null : result.isBase64Encoded ? fromBase64(result.body) : result.body;
  const statusText = 'statusDescription' in result ? result.statusDescription.replace(/^\d+\s*/, '') : undefined;
  return new Response(body as BodyInit | null, { status, statusText, headers });
}
