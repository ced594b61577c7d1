import { Buffer } from 'node:buffer';
import type { ClientSignal, HeadersLike, UpstreamFetch, UpstreamInit, UpstreamResponse } from '../core/index.ts';
import { Http1ParseError, Http1ResponseReader } from './http1-response.ts';
import { ChunkQueue, QueuedAnswer, readAbortReason } from './upstream-answer.ts';
import { readTarget, type UpstreamTarget } from './upstream-target.ts';

/**
 * The adapters' own upstream client: HTTP/1.1 in a keep-alive pool per origin, over whatever
 * sockets the runtime gives (`Bun.connect` in bun-upstream.ts, `node:net`/`node:tls` in
 * node-sockets.ts). Answers are read by an Http1ResponseReader, and a body reaches core as the
 * chunks read off the socket, with no web stream or Node stream in between. It enforces the
 * header time-out itself and takes the client's signal as it is (UpstreamFetch).
 */
export interface Http1ClientOptions {
  /**
   * Most connections open to one origin at once; further calls wait for one. No limit by default:
   * a streamed answer holds its connection for minutes, and a cap there makes the next caller hang
   * until some other stream ends (LiteLLM's pool starvation, BerriAI/litellm#19549).
   */
  connections?: number;
  /** How long an unused connection is kept for the next call (shortened by an upstream's `keep-alive` hint). */
  keepAliveMs?: number;
  /** Certificate authorities to trust for https upstreams instead of the runtime's own roots. */
  ca?: string | string[];
}

export type Http1Settings = Required<Omit<Http1ClientOptions, 'ca'>> & Pick<Http1ClientOptions, 'ca'>;

/** A runtime's socket as the client uses it. */
export interface Http1Socket {
  /** Bytes of a request still waiting to go out. */
  readonly writing: boolean;
  /** Writes a request's parts in order; what the socket does not take now goes later, in order. */
  write(parts: Uint8Array[]): void;
  /** A call is on it: no idle limit, and it keeps the process alive. */
  busy(): void;
  /** No call on it: `onIdleTimeout` after about `ms`, and it does not keep the process alive. */
  idle(ms: number): void;
  pause(): void;
  resume(): void;
  destroy(): void;
}

/** What a socket tells its connection once open (never before: an opener that fails rejects instead). */
export interface Http1SocketEvents {
  onData(bytes: Uint8Array): void;
  onIdleTimeout(): void;
  onClose(error: Error | undefined): void;
}

/**
 * Opens a socket to the target; for https, resolves only once the handshake has verified the
 * certificate, so no byte of a request goes to a server that could not be verified.
 */
export type OpenSocket = (target: UpstreamTarget, settings: Http1Settings, events: Http1SocketEvents) => Promise<Http1Socket>;

/**
 * `copyBody`: the socket hands over bytes in a buffer it reuses, so a body's chunks are copied
 * out before they are queued.
 */
export function createHttp1Fetch(open: OpenSocket, options: Http1ClientOptions = {}, copyBody = false): UpstreamFetch {
  const settings: Http1Settings = Object.assign({ connections: Infinity, keepAliveMs: 30_000 }, options);
  const pools = new Map<string, Pool>();
  const fetch = (url: string, init: UpstreamInit): Promise<UpstreamResponse> => {
    let target: UpstreamTarget;
    let request: Uint8Array[];
    try {
      target = readTarget(url);
      request = writeRequest(init.method ?? 'GET', target, init.headers as Record<string, string> | undefined, init.body);
    } catch (err) {
      return Promise.reject(err);
    }
    let pool = pools.get(target.origin);
    if (!pool) {
      pool = new Pool(target, settings, open);
      pools.set(target.origin, pool);
    }
    const call = new H1Call(request, init.method === 'HEAD', copyBody, (init.signal ?? undefined) as ClientSignal | undefined, init.headersTimeoutMs);
    starting = call;
    const answer = new Promise<UpstreamResponse>(startCall);
    starting = undefined;
    pool.dispatch(call);
    return answer;
  };
  return Object.assign(fetch, { enforcesHeadersTimeout: true });
}

/**
 * The call whose promise is being made. The executor runs within `new Promise`, at once, so a
 * module-level one needs no closure per call: an arrow over the call made a function and a scope
 * object each time (JavaScriptCore; V8 likewise).
 */
let starting: H1Call | undefined;

function startCall(resolve: (answer: UpstreamResponse) => void, reject: (err: unknown) => void): void {
  starting!.start(resolve, reject);
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** CR, LF and NUL split or cut a request; a character past U+00FF has no byte to be written as. */
const FORBIDDEN_VALUE = /[\r\n\0]|[^\0-\xff]/;
/** Written by the client itself, from the URL and the body. */
const OWN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'accept-encoding']);

/** A body past this size is written after its head, not copied in beside it (a string is encoded on its own). */
const JOIN_BODY_BYTES = 64 * 1024;

/**
 * The request's bytes: request line, header section and body in one buffer, so they leave in one
 * write (one packet to a nearby upstream), or a large byte body after its head uncopied (a
 * coding agent's 400 KB prompt). Header names and values are checked: a CR or LF in a configured
 * value or a forwarded client header would otherwise split the request.
 */
function writeRequest(method: string, target: UpstreamTarget, headers: Record<string, string> | undefined, body: unknown): Uint8Array[] {
  // identity: with no accept-encoding a server may compress (RFC 9110 12.5.3), and core reads
  // and relays the body as sent; Bun's fetch asked for gzip and undid it on the way in.
  let head = `${method} ${target.path} HTTP/1.1\r\nhost: ${target.host}\r\naccept-encoding: identity\r\n`;
  if (headers) {
    for (const name in headers) {
      const value = headers[name];
      if (value === undefined) continue;
      if (!TOKEN.test(name) || FORBIDDEN_VALUE.test(value)) throw new TypeError(`Invalid upstream header: ${name}`);
      if (OWN_HEADERS.has(name.toLowerCase())) continue;
      head += `${name}: ${value}\r\n`;
    }
  }
  if (body === undefined || body === null) {
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') head += 'content-length: 0\r\n';
    return [Buffer.from(`${head}\r\n`, 'latin1')];
  }
  if (typeof body === 'string' && body.length > JOIN_BODY_BYTES) body = Buffer.from(body);
  if (typeof body === 'string') {
    // Encoded once, into the request's own buffer.
    const size = Buffer.byteLength(body);
    head += `content-length: ${size}\r\n\r\n`;
    const out = Buffer.allocUnsafe(head.length + size);
    out.write(head, 0, 'latin1');
    out.write(body, head.length, 'utf8');
    return [out];
  }
  if (!(body instanceof Uint8Array)) throw new TypeError('The upstream client sends string and byte bodies only');
  head += `content-length: ${body.byteLength}\r\n\r\n`;
  if (body.byteLength > JOIN_BODY_BYTES) return [Buffer.from(head, 'latin1'), body];
  const out = Buffer.allocUnsafe(head.length + body.byteLength);
  out.write(head, 0, 'latin1');
  out.set(body, head.length);
  return [out];
}

/**
 * How long after a request went out on a reused connection a close with no byte of answer is
 * taken for the upstream having closed that connection while it sat idle (its keep-alive ran out
 * as the request was sent), so that the request is sent again on another connection. Such a
 * close comes within a round trip; one later may be an upstream that failed while working on it.
 */
const RESEND_WINDOW_MS = 1000;

/** One call: its request, its answer's promise, and its body's queue once the headers are in. */
class H1Call extends ChunkQueue {
  /** The request's bytes, until a connection has taken them. */
  request: Uint8Array[] | undefined;
  readonly noBody: boolean;
  readonly copyBody: boolean;
  connection: Connection | undefined;
  /**
   * The request's bytes once more, while they may have to be sent again (on a reused connection,
   * until the answer's first byte; a body past 64 KiB for RESEND_WINDOW_MS at most).
   */
  resend: Uint8Array[] | undefined;
  sentAt = 0;
  resent = false;
  #resolve: ((answer: UpstreamResponse) => void) | undefined;
  #reject: ((err: unknown) => void) | undefined;
  #signal: ClientSignal | undefined;
  readonly #headersTimeoutMs: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #answered = false;
  #finished = false;

  constructor(request: Uint8Array[], noBody: boolean, copyBody: boolean, signal: ClientSignal | undefined, headersTimeoutMs: number | undefined) {
    super();
    this.request = request;
    this.noBody = noBody;
    this.copyBody = copyBody;
    this.#signal = signal;
    this.#headersTimeoutMs = headersTimeoutMs;
  }

  /**
   * The call's promise is made: it listens to its client and starts its header timer. The call
   * is the signal's listener itself (`handleEvent`) and the timer's argument, so neither needs
   * a closure per call.
   */
  start(resolve: (answer: UpstreamResponse) => void, reject: (err: unknown) => void): void {
    this.#resolve = resolve;
    this.#reject = reject;
    const signal = this.#signal;
    if (signal?.aborted) {
      this.#signal = undefined;
      reject(readAbortReason(signal));
      this.#answered = this.#finished = true;
      this.request = undefined;
      return;
    }
    signal?.addEventListener('abort', this);
    const ms = this.#headersTimeoutMs;
    if (ms !== undefined && ms > 0 && ms < 2 ** 31) this.#timer = setTimeout(abortOnHeadersTimeout, ms, this, ms);
  }

  /** The client's signal aborted. */
  handleEvent(): void {
    this.abort(readAbortReason(this.#signal));
  }

  get finished(): boolean {
    return this.#finished;
  }

  onHead(status: number, headers: HeadersLike): void {
    this.#clearTimer();
    this.#answered = true;
    this.#resolve!(new QueuedAnswer(status, headers, status === 204 || status === 304 || this.noBody ? null : this));
  }

  onBody(chunk: Uint8Array): void {
    // Node's sockets read into one shared buffer, which the next read overwrites.
    this.pushChunk(this.copyBody ? Buffer.from(chunk) : (chunk as Buffer));
  }

  onEnd(): void {
    this.#finish();
    this.endChunks();
  }

  /** The call failed: before its headers the promise rejects, after them the body's next read does. */
  fail(err: unknown): void {
    if (this.#finished) return;
    this.#finish();
    if (!this.#answered) {
      this.#answered = true;
      this.#reject!(err);
      return;
    }
    this.failChunks(err);
  }

  /** The client left, the headers took too long, or core stopped reading: the call and its connection go. */
  abort(reason: Error): void {
    if (this.#finished) return;
    const connection = this.connection;
    this.fail(reason);
    connection?.destroy();
  }

  protected pauseSource(): void {
    this.connection?.pause();
  }

  protected resumeSource(): void {
    this.connection?.resume();
  }

  protected abortSource(reason: Error): void {
    this.abort(reason);
  }

  /** The request went out on a connection that had carried others before. */
  keepForResend(request: Uint8Array[]): void {
    if (this.resent) return;
    this.resend = request;
    this.sentAt = performance.now();
    if (request.length > 1) setTimeout(forgetResend, RESEND_WINDOW_MS, this).unref?.();
  }

  /** Whether a close before any answer may be taken for a stale connection (see RESEND_WINDOW_MS). */
  takeResend(): Uint8Array[] | undefined {
    const resend = this.resend;
    this.resend = undefined;
    if (!resend || this.#finished || performance.now() - this.sentAt > RESEND_WINDOW_MS) return undefined;
    this.resent = true;
    this.connection = undefined;
    return resend;
  }

  #finish(): void {
    this.#finished = true;
    this.request = this.resend = undefined;
    this.#clearTimer();
    this.#signal?.removeEventListener('abort', this);
    this.#signal = undefined;
  }

  #clearTimer(): void {
    if (this.#timer === undefined) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function abortOnHeadersTimeout(call: H1Call, ms: number): void {
  call.abort(timeoutError(ms));
}

function forgetResend(call: H1Call): void {
  call.resend = undefined;
}

function timeoutError(ms: number): Error {
  return Object.assign(new Error(`Upstream headers timed out after ${ms} ms`), { name: 'TimeoutError' });
}

/** Keep-alive connections to one origin, and the calls waiting for one. */
class Pool {
  #idle: Connection[] = [];
  #waiting: H1Call[] = [];
  #open = 0;
  /** Connections being opened, each for a call waiting. */
  #opening = 0;

  constructor(
    readonly target: UpstreamTarget,
    readonly settings: Http1Settings,
    readonly open: OpenSocket,
  ) {}

  dispatch(call: H1Call): void {
    if (call.finished) return;
    for (;;) {
      const connection = this.#idle.pop();
      if (!connection) break;
      if (connection.usable) {
        connection.start(call);
        return;
      }
      connection.destroy();
    }
    this.#waiting.push(call);
    this.#openIfNeeded();
  }

  /** A connection is free again: the next waiting call takes it, or it waits for one. */
  release(connection: Connection): void {
    for (;;) {
      const call = this.#waiting.shift();
      if (!call) break;
      if (!call.finished) {
        connection.start(call);
        return;
      }
    }
    this.#idle.push(connection);
    connection.idle(this.settings.keepAliveMs);
  }

  /** A connection closed: it leaves the pool, and calls still waiting get a new one. */
  closed(connection: Connection): void {
    this.#open--;
    const at = this.#idle.indexOf(connection);
    if (at >= 0) this.#idle.splice(at, 1);
    this.#openIfNeeded();
  }

  #openIfNeeded(): void {
    this.#dropFinished();
    if (this.#waiting.length <= this.#opening || this.#open >= this.settings.connections) return;
    this.#open++;
    this.#opening++;
    Connection.open(this).then(
      (connection) => {
        this.#opening--;
        this.release(connection);
      },
      (err: unknown) => {
        this.#opening--;
        this.#open--;
        // A failed connect fails the call it was opened for, not every call waiting on the pool.
        this.#dropFinished();
        this.#waiting.shift()?.fail(err);
      },
    );
  }

  /** Calls that ended while waiting (their client left, their time ran out) need no connection. */
  #dropFinished(): void {
    if (this.#waiting.some((call) => call.finished)) this.#waiting = this.#waiting.filter((call) => !call.finished);
  }
}

/** One keep-alive socket: one call at a time, its answer read by an Http1ResponseReader. */
class Connection implements Http1SocketEvents {
  #pool: Pool;
  #socket: Http1Socket | undefined;
  #call: H1Call | undefined;
  #reader: Http1ResponseReader | undefined;
  #closed = false;
  #paused = false;
  /** Calls this connection has carried; from the second on, the upstream may have closed it meanwhile. */
  #served = 0;
  #idleUntil = 0;
  /** From the last answer's `keep-alive: timeout=N`, a second short so the upstream never closes first. */
  #upstreamKeepAliveMs = Infinity;

  private constructor(pool: Pool) {
    this.#pool = pool;
  }

  static async open(pool: Pool): Promise<Connection> {
    const connection = new Connection(pool);
    connection.#socket = await pool.open(pool.target, pool.settings, connection);
    return connection;
  }

  get usable(): boolean {
    return !this.#closed && Date.now() < this.#idleUntil;
  }

  start(call: H1Call): void {
    this.#call = call;
    call.connection = this;
    this.#idleUntil = Infinity;
    const socket = this.#socket!;
    socket.busy();
    this.#reader = new Http1ResponseReader(call, call.noBody);
    const request = call.request!;
    call.request = undefined;
    if (this.#served++ > 0) call.keepForResend(request);
    socket.write(request);
  }

  idle(keepAliveMs: number): void {
    const ms = Math.min(keepAliveMs, this.#upstreamKeepAliveMs);
    this.#idleUntil = Date.now() + ms;
    this.#socket!.idle(ms);
  }

  pause(): void {
    if (this.#paused || this.#closed) return;
    this.#paused = true;
    this.#socket?.pause();
  }

  resume(): void {
    if (!this.#paused || this.#closed) return;
    this.#paused = false;
    this.#socket?.resume();
  }

  destroy(): void {
    if (this.#closed) return;
    this.#socket?.destroy();
    this.onClose(undefined);
  }

  onData(data: Uint8Array): void {
    const call = this.#call;
    const reader = this.#reader;
    if (!call || !reader) {
      // Bytes with no call to take them: the upstream is out of step with this client.
      this.destroy();
      return;
    }
    // The upstream answered on this connection: whatever happens next, the request is not sent again.
    call.resend = undefined;
    try {
      reader.read(data);
    } catch (err) {
      call.fail(err instanceof Http1ParseError ? new Error(`Upstream answer could not be read: ${err.message}`, { cause: err }) : err);
      this.destroy();
      return;
    }
    if (reader.done) this.#done(reader);
  }

  onIdleTimeout(): void {
    if (!this.#call) this.destroy();
  }

  onClose(error: Error | undefined): void {
    if (this.#closed) return;
    this.#closed = true;
    const call = this.#call;
    const reader = this.#reader;
    this.#call = this.#reader = undefined;
    if (call && reader && !call.finished) {
      try {
        // A body that runs until the close ends here.
        reader.close();
      } catch (err) {
        const resend = call.takeResend();
        if (resend) {
          // Chromium's rule for a reused connection closed before any byte of answer, within a round trip or so.
          call.request = resend;
          this.#pool.closed(this);
          this.#pool.dispatch(call);
          return;
        }
        call.fail(new Error(`Upstream connection closed: ${(err as Error).message}`, { cause: error }));
      }
    }
    this.#pool.closed(this);
  }

  #done(reader: Http1ResponseReader): void {
    const call = this.#call;
    this.#call = this.#reader = undefined;
    if (call) call.connection = undefined;
    // An answer that came before its request was all sent (a refusal): the connection is out of step.
    if (!reader.keepAlive || this.#socket!.writing) {
      this.destroy();
      return;
    }
    this.resume();
    if (reader.keepAliveHint !== undefined) this.#upstreamKeepAliveMs = readKeepAliveHint(reader.keepAliveHint);
    this.#pool.release(this);
  }
}

/** Seconds from `keep-alive: timeout=N` as milliseconds, a second short of them. */
function readKeepAliveHint(hint: string): number {
  const match = /timeout=(\d+)/i.exec(hint);
  return match ? Math.max(0, Number(match[1]) * 1000 - 1000) : Infinity;
}
