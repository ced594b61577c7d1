import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { abortCounter, listenLocal, sleep, type AbortCounter } from './fake-server.ts';
import { parseAuthorization, sigV4Signature } from './sigv4.ts';

export type BedrockOperation = 'converse' | 'converse-stream' | 'invoke' | 'invoke-with-response-stream' | 'count-tokens';

/** One request the fake accepted (its signature or key checked out). */
export interface BedrockCall {
  operation: BedrockOperation;
  /** The model id, decoded from the path. */
  modelId: string;
  /** Path as sent on the wire (model id still percent-encoded). */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json?: any;
  auth: 'sigv4' | 'bearer';
}

/** How the fake answers one call. */
export interface BedrockReply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body (Converse, InvokeModel, CountTokens). */
  json?: unknown;
  /** Event-stream frames (see bedrock-frames.ts), sent as application/vnd.amazon.eventstream, `delayMs` apart. */
  frames?: Uint8Array[];
  delayMs?: number;
  /** Send the frames, then keep the connection open until the client goes away. */
  hang?: boolean;
  /** A Bedrock HTTP error: `x-amzn-ErrorType` header plus `{"message"}` body. */
  error?: { type: string; message: string; status: number };
}

export type BedrockHandler = (call: BedrockCall) => BedrockReply | Promise<BedrockReply>;

export interface FakeBedrockOptions {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** When set, SigV4 requests must carry (and sign) this X-Amz-Security-Token. */
  sessionToken?: string;
  /** When set, `Authorization: Bearer <apiKey>` is accepted too. */
  apiKey?: string;
  handler?: BedrockHandler;
}

export interface FakeBedrock {
  url: string;
  region: string;
  calls: BedrockCall[];
  /** Requests refused for their credentials or signature, with the reason. */
  rejected: string[];
  aborts: number;
  reply(handler: BedrockHandler): void;
  waitForAborts(count: number, ms?: number): Promise<void>;
  close(): Promise<void>;
}

export const FAKE_CREDENTIALS = { accessKeyId: 'AKIDFAKEBEDROCK', secretAccessKey: 'fake/secret+KEY' } as const;

/**
 * A Bedrock Runtime stand-in on 127.0.0.1: checks every request's SigV4 signature (service
 * `bedrock`, double-encoded canonical path) with an implementation independent of the gateway's,
 * refuses mismatches the way AWS does (403 InvalidSignatureException / UnrecognizedClientException),
 * and answers the four chat operations and CountTokens from scripted replies.
 */
export async function startFakeBedrock(opts: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const region = opts.region ?? 'us-east-1';
  const accessKeyId = opts.accessKeyId ?? FAKE_CREDENTIALS.accessKeyId;
  const secretAccessKey = opts.secretAccessKey ?? FAKE_CREDENTIALS.secretAccessKey;
  let handler: BedrockHandler = opts.handler ?? (() => ({ error: { type: 'ResourceNotFoundException', message: 'No reply scripted', status: 404 } }));
  const calls: BedrockCall[] = [];
  const rejected: string[] = [];
  const aborts = abortCounter('Bedrock');

  const server = createServer(async (req, res) => {
    const raw = await readBody(req);
    const path = (req.url ?? '/').split('?')[0]!;
    const refusal = checkAuth(req, path, raw);
    if (refusal) {
      rejected.push(refusal.message);
      return sendError(res, { ...refusal, status: 403 });
    }
    const match = /^\/model\/([^/]+)\/(converse|converse-stream|invoke|invoke-with-response-stream|count-tokens)$/.exec(path);
    if (req.method !== 'POST' || !match) return sendError(res, { type: 'UnknownOperationException', message: `No operation at ${req.method} ${path}`, status: 404 });
    const body = raw.toString('utf8');
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const auth = String(req.headers.authorization).startsWith('Bearer ') ? 'bearer' : 'sigv4';
    const call: BedrockCall = { operation: match[2] as BedrockOperation, modelId: decodeURIComponent(match[1]!), path, headers: req.headers, body, json, auth };
    calls.push(call);
    let reply: BedrockReply;
    try {
      reply = await handler(call);
    } catch (err) {
      reply = { error: { type: 'InternalServerException', message: String(err), status: 500 } };
    }
    await send(res, reply, aborts);
  });

  function checkAuth(req: IncomingMessage, path: string, body: Buffer): { type: string; message: string } | undefined {
    const authorization = String(req.headers.authorization ?? '');
    if (authorization.startsWith('Bearer ')) {
      return opts.apiKey && authorization === `Bearer ${opts.apiKey}` ? undefined : { type: 'UnrecognizedClientException', message: 'Invalid API key' };
    }
    const auth = parseAuthorization(authorization);
    if (!auth) return { type: 'MissingAuthenticationTokenException', message: 'Missing or malformed Authorization header' };
    if (auth.accessKeyId !== accessKeyId) return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
    const amzDate = String(req.headers['x-amz-date'] ?? '');
    const expectedScope = `${amzDate.slice(0, 8)}/${region}/bedrock/aws4_request`;
    if (auth.scope !== expectedScope) return { type: 'InvalidSignatureException', message: `Credential should be scoped to ${expectedScope}, not ${auth.scope}` };
    const signedAt = Date.parse(amzDate.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));
    if (!Number.isFinite(signedAt) || Math.abs(Date.now() - signedAt) > 5 * 60_000) return { type: 'InvalidSignatureException', message: 'Signature expired or X-Amz-Date missing' };
    for (const required of ['host', 'x-amz-date', ...(opts.sessionToken ? ['x-amz-security-token'] : [])]) {
      if (!auth.signedHeaders.includes(required)) return { type: 'InvalidSignatureException', message: `Header ${required} must be signed` };
    }
    if (opts.sessionToken && req.headers['x-amz-security-token'] !== opts.sessionToken) {
      return { type: 'UnrecognizedClientException', message: 'The security token included in the request is invalid.' };
    }
    const headers: Record<string, string> = {};
    for (const name of auth.signedHeaders) {
      const value = req.headers[name];
      if (value === undefined) return { type: 'InvalidSignatureException', message: `Signed header ${name} is missing` };
      headers[name] = Array.isArray(value) ? value.join(',') : value;
    }
    const expected = sigV4Signature({ method: req.method ?? 'POST', path, headers, body, secretAccessKey, region, service: 'bedrock', amzDate });
    if (expected.signature !== auth.signature) {
      return {
        type: 'InvalidSignatureException',
        message: `The request signature we calculated does not match the signature you provided.\nThe Canonical String for this request should have been\n'${expected.canonical}'`,
      };
    }
    return undefined;
  }

  const { url, close } = await listenLocal(server);
  return {
    url,
    region,
    calls,
    rejected,
    get aborts() {
      return aborts.count;
    },
    reply(next) {
      handler = next;
    },
    waitForAborts: (count, ms) => aborts.waitFor(count, ms),
    close,
  };
}

async function send(res: ServerResponse, reply: BedrockReply, aborts: AbortCounter): Promise<void> {
  if (reply.error) return sendError(res, reply.error, reply.headers);
  const finish = aborts.track(res);
  const headers: Record<string, string> = { 'x-amzn-requestid': 'fake-request-id', ...reply.headers };
  if (reply.frames) {
    headers['content-type'] ??= 'application/vnd.amazon.eventstream';
    res.writeHead(reply.status ?? 200, headers);
    res.flushHeaders();
    for (const frame of reply.frames) {
      if (reply.delayMs) await sleep(reply.delayMs);
      if (res.destroyed) return;
      res.write(frame);
    }
    if (reply.hang) return;
    finish();
    res.end();
    return;
  }
  headers['content-type'] ??= 'application/json';
  res.writeHead(reply.status ?? 200, headers);
  if (reply.hang) {
    res.flushHeaders();
    return;
  }
  finish();
  res.end(JSON.stringify(reply.json ?? {}));
}

function sendError(res: ServerResponse, error: { type: string; message: string; status: number }, extra: Record<string, string> = {}): void {
  res.writeHead(error.status, {
    'content-type': 'application/json',
    'x-amzn-requestid': 'fake-request-id',
    'x-amzn-errortype': `${error.type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    ...extra,
  });
  res.end(JSON.stringify({ message: error.message }));
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
