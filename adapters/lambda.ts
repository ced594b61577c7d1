import process from 'node:process';
import type { Gateway, UpstreamFetch } from '../core/index.ts';
import { readLambdaEvent, readResponseHeaders, writeLambdaResult } from './lambda-event.ts';
import type { AwsLambdaGlobal, LambdaContext, LambdaHttpEvent, LambdaResponseStream, LambdaResult, LambdaStreamingHandler } from './lambda-types.ts';
import { createNodeSocketFetch } from './node-sockets.ts';
import { startGateway } from './startup.ts';

type GatewayLike = Pick<Gateway, 'fetch'>;
export type GatewaySource = GatewayLike | Promise<GatewayLike> | (() => GatewayLike | Promise<GatewayLike>);

export interface LambdaHandlers {
  /** Buffered: API Gateway REST (v1) and HTTP API (v2), ALB, Function URLs in BUFFERED mode. */
  handler(event: LambdaHttpEvent, context?: LambdaContext): Promise<LambdaResult>;
  /** Response streaming: Function URLs (and REST APIs) in RESPONSE_STREAM mode; SSE arrives as it is made. */
  streamHandler: LambdaStreamingHandler;
  /** The gateway, started on first use and kept for the life of the container. */
  ready(): Promise<GatewayLike>;
}

/**
 * Wraps a gateway (or a promise or factory of one) in Lambda handlers. A factory runs once per
 * container; if it fails, the next invocation tries again, so a fixed secret needs no redeploy.
 */
export function createLambdaHandlers(source: GatewaySource): LambdaHandlers {
  let pending: Promise<GatewayLike> | undefined;
  const ready = (): Promise<GatewayLike> => {
    if (pending) return pending;
    const started = Promise.resolve().then(() => (typeof source === 'function' ? source() : source));
    pending = started;
    started.catch(() => {
      if (pending === started) pending = undefined;
    });
    return started;
  };

  async function respond(event: LambdaHttpEvent, signal?: AbortSignal): Promise<Response> {
    let request: Request;
    try {
      request = readLambdaEvent(event, { signal });
    } catch {
      return new Response('Bad request', { status: 400, headers: { 'content-type': 'text/plain' } });
    }
    try {
      return await (await ready()).fetch(request);
    } catch (err) {
      // A configuration that does not load lands here: say why in the function's log.
      console.error(`switchyard: ${err instanceof Error ? err.message : String(err)}`);
      return new Response('Internal error', { status: 500, headers: { 'content-type': 'text/plain' } });
    }
  }

  const handler = async (event: LambdaHttpEvent, _context?: LambdaContext): Promise<LambdaResult> =>
    writeLambdaResult(await respond(event), event);

  const streamBody: LambdaStreamingHandler = async (event, responseStream) => {
    // An error on a stream the client already left must not crash the runtime.
    responseStream.on('error', (err: unknown) => console.error(`switchyard: response stream: ${String(err)}`));
    const abort = new AbortController();
    // A stream closed while the upstream has not answered yet (the client left during a long wait
    // for a model's first byte) cancels the upstream call as a close mid-body does (pipeBody).
    const onGone = () => abort.abort();
    responseStream.once('close', onGone);
    let response: Response;
    try {
      response = await respond(event, abort.signal);
    } finally {
      responseStream.off('close', onGone);
    }
    if (abort.signal.aborted) {
      void response.body?.cancel().catch(() => {});
      return;
    }
    const { headers, cookies } = readResponseHeaders(response.headers);
    const stream = awsLambda().HttpResponseStream.from(responseStream, { statusCode: response.status, headers, cookies });
    await pipeBody(response.body, stream, abort);
  };
  // Outside Lambda (tests, local runs) there is no awslambda global: the plain function is exported.
  const runtime = (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
  return { handler, streamHandler: runtime ? runtime.streamifyResponse(streamBody) : streamBody, ready };
}

function awsLambda(): AwsLambdaGlobal {
  const runtime = (globalThis as { awslambda?: AwsLambdaGlobal }).awslambda;
  if (!runtime) throw new Error('streamHandler needs the awslambda global of the Lambda Node.js runtime');
  return runtime;
}

/**
 * Copies the body into the response stream as it arrives, waiting for 'drain' when Lambda's
 * buffer is full. When the stream closes or fails first (the client left), the body is cancelled
 * and the request's signal aborted, which cancels the upstream call.
 */
async function pipeBody(body: ReadableStream<Uint8Array> | null, stream: LambdaResponseStream, abort: AbortController): Promise<void> {
  const reader = body?.getReader();
  let gone = false;
  const onGone = () => {
    gone = true;
    abort.abort();
    void reader?.cancel().catch(() => {});
  };
  stream.once('close', onGone);
  stream.once('error', onGone);
  try {
    // Lambda sends the status line and headers with the first write, so an empty body writes once.
    if (!reader) stream.write(new Uint8Array(0));
    while (reader && !gone) {
      const { done, value } = await reader.read();
      if (done || gone) break;
      if (!stream.write(value) && !gone) await drained(stream);
    }
  } catch (err) {
    // The body failed after the headers went out (core already ended it with the family's error
    // frame where it could), or it was cut because the client left, which needs no log line.
    if (!gone) console.error(`switchyard: response body failed: ${err instanceof Error ? err.message : String(err)}`);
  } finally {
    stream.off('close', onGone);
    stream.off('error', onGone);
  }
  if (!gone && !stream.destroyed) await new Promise<void>((resolve) => stream.end(() => resolve()));
}

function drained(stream: LambdaResponseStream): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      stream.off('drain', go);
      stream.off('close', go);
      stream.off('error', go);
      resolve();
    };
    stream.once('drain', go);
    stream.once('close', go);
    stream.once('error', go);
  });
}

/**
 * Builds the gateway on Lambda: SWITCHYARD_CONFIG (a file path in the bundle), else
 * SWITCHYARD_CONFIG_JSON (the document inline), else the provider environment variables. The
 * function role's credentials are in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY /
 * AWS_SESSION_TOKEN, so the environment alone gives a Bedrock provider.
 */
export async function startLambdaGateway(env: Record<string, string | undefined> = process.env): Promise<Gateway> {
  if (!env.SWITCHYARD_CONFIG && !env.SWITCHYARD_CONFIG_JSON && !env.SWITCHYARD_KEY) {
    // A generated key would differ between concurrent containers, so none is made up here.
    throw new Error('set SWITCHYARD_KEY (or SWITCHYARD_CONFIG / SWITCHYARD_CONFIG_JSON) in the function environment');
  }
  // Storage only when the configuration names one (PostgreSQL + Redis): the file system is read-only.
  return startGateway({ env, argv: [], configJson: env.SWITCHYARD_CONFIG_JSON, defaultStorage: false, fetch: selectLambdaUpstream(env) });
}

/**
 * The Node adapter's own upstream client (node-sockets.ts), or Node's global fetch with
 * `SWITCHYARD_UPSTREAM_CLIENT=fetch`. The global fetch gives up after 300 s waiting for headers
 * or on a quiet stream (undici's defaults), where the provider's `timeoutMs` (600 s by default)
 * is meant to be the only limit and a streaming Function URL may run 15 minutes; it also costs a
 * timer and an AbortController per call. Connections idle between invocations are kept 30 s at
 * most; one the upstream closed while the container was frozen is dropped when the close is read,
 * and a request already sent on it goes again (the client's resend rule).
 */
export function selectLambdaUpstream(env: Record<string, string | undefined>): UpstreamFetch | undefined {
  return env.SWITCHYARD_UPSTREAM_CLIENT === 'fetch' ? undefined : createNodeSocketFetch();
}

const lambda = createLambdaHandlers(() => startLambdaGateway());

/** `handler` for buffered integrations: API Gateway REST/HTTP APIs, ALB, BUFFERED Function URLs. */
export const handler = lambda.handler;
/** `streamHandler` for RESPONSE_STREAM Function URLs (and REST APIs in stream transfer mode). */
export const streamHandler = lambda.streamHandler;

// Lambda runs module init at full CPU before the first invocation: start there, not on the first call.
if (process.env.AWS_LAMBDA_FUNCTION_NAME) lambda.ready().catch(() => {});
