import type { IncomingMessage, ServerResponse } from 'node:http';
import { ClientAbort, CLIENT_SIGNAL, GatewayError, streamOfReader, type ChunkReader } from '../core/index.ts';
import { equalsLowerAscii, lowerAscii } from './ascii-case.ts';
import { readChunks } from './node-io.ts';

/**
 * The node:http request as the web `Request` core reads, built lazily. A real `Request` costs
 * Node a URL parse, a second Headers copy, a body stream and an AbortSignal that follows ours,
 * all made transferable, on every call; core only ever reads `method`, `url`, `headers`,
 * `body` and `signal`, so only those exist, each created the first time it is read. (srvx and
 * @hono/node-server do the same.) `toRequest()` gives a real one for code that needs it.
 */
export class NodeRequest {
  readonly method: string;
  readonly url: string;
  #headers: Headers | undefined;
  #body: ReadableStream<Uint8Array> | null | undefined;
  #controller: AbortController | undefined;
  #client: ClientAbort | undefined;
  #closed = false;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
    // The client going away before the answer finished aborts whatever reads `signal`.
    // 'close' fires once per response: `on` skips the wrapper `once` makes per request.
    res.on('close', () => {
      if (res.writableFinished) return;
      this.#closed = true;
      this.#client?.abort();
      this.#controller?.abort();
    });
  }

  get headers(): Headers {
    this.#headers ??= new RawHeaders(this.req.rawHeaders) as unknown as Headers;
    return this.#headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) this.#body = this.method === 'GET' || this.method === 'HEAD' ? null : streamOfReader(this.#readUpload());
    return this.#body;
  }

  /**
   * The request body as it arrives. A reader that stops early (a body past the size limit) only
   * stops reading: destroying the request would take its socket, and with it the 413 still to be
   * written. The writer answers with `connection: close` and then closes the connection lingering,
   * reading and dropping the rest of the upload for a while (closeIfUnread in node-io.ts).
   */
  #readUpload(): ChunkReader {
    const reader = readChunks(this.req);
    return {
      read: () => reader.read(),
      cancel: async () => void this.req.pause(),
    };
  }

  /** A real AbortSignal, for handlers that pass it on to web APIs (core reads CLIENT_SIGNAL). */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#closed) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** The same disconnect as `signal`, without an AbortController's cost (core/http/client-signal.ts). */
  get [CLIENT_SIGNAL](): ClientAbort {
    if (!this.#client) {
      this.#client = new ClientAbort();
      if (this.#closed) this.#client.abort();
    }
    return this.#client;
  }

  /** The whole body straight from node:http's chunks (readNodeBody): no web stream in between. */
  bytes(): Promise<Uint8Array> {
    if (this.#body !== undefined) return new Response(this.#body).arrayBuffer().then((buffer) => new Uint8Array(buffer));
    this.#body = null;
    return readNodeBody(this.req);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(await this.bytes());
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  toRequest(): Request {
    const body = this.body;
    return new Request(this.url, { method: this.method, headers: readHeaders(this.req.rawHeaders), signal: this.signal, body, duplex: 'half' } as RequestInit);
  }
}

/**
 * A node:http request's whole body. node:http hands over a request as soon as its head is parsed,
 * and a body that came in the same read is pushed before the next microtask runs: then it is
 * taken with one `read()`, without the flowing mode a 'data' listener starts (a tick to resume,
 * 'data' and 'end' emitted, four listeners; ~6% of a JSON passthrough's CPU on Node). A body
 * still arriving is read as it comes.
 */
export function readNodeBody(req: IncomingMessage): Promise<Uint8Array> {
  return SETTLED.then(() => readBody(req));
}

const EMPTY = new Uint8Array(0);
/** One settled promise to wait on: a `then` of it is the one promise a body's read makes. */
const SETTLED = Promise.resolve();

/**
 * The body whole if the parser has pushed all of it, else as its chunks come. "All of it": the
 * declared length is buffered (the parser pushes no more than that), or the message is complete;
 * node:http marks it complete only after the microtasks queued meanwhile have run, so a body that
 * came whole is seen by its length. A request destroyed already (its 'close' may have gone out in
 * a tick before this) is a client that left.
 */
function readBody(req: IncomingMessage): Uint8Array | Promise<Uint8Array> {
  if (req.destroyed) throw clientGone();
  const declared = req.headers['content-length'];
  if (!req.readableFlowing && (req.complete || (declared !== undefined && req.readableLength === Number(declared)))) return (req.read() as Buffer | null) ?? EMPTY;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
    const gone = (cause?: unknown) => reject(clientGone(cause));
    req.on('error', gone);
    req.on('close', () => {
      if (!req.complete) gone();
    });
  });
}

/** The client leaving mid-upload is not a gateway fault: a 499, not a logged 500. */
function clientGone(cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', 'Client closed the request before sending its body', { status: 499, cause });
}

function readHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
  return headers;
}

/**
 * The request's headers read straight from node:http's raw list. Core only calls `get` a few
 * times per request, which a scan of ~10 pairs answers faster than building a `Headers` (one
 * validated append per header); values of a repeated name are joined with ", " as `Headers`
 * does. Anything else a handler may call (iteration, `has`, `getSetCookie`) goes to a real
 * `Headers`, built on first use.
 */
class RawHeaders {
  #full: Headers | undefined;

  constructor(private readonly raw: readonly string[]) {}

  get(name: string): string | null {
    const wanted = lowerAscii(name);
    const raw = this.raw;
    let value: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i]!;
      if (key === wanted || equalsLowerAscii(key, wanted)) value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
    return value;
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  forEach(callback: (value: string, name: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#all().forEach(callback, thisArg);
  }

  entries(): HeadersIterator<[string, string]> {
    return this.#all().entries();
  }

  keys(): HeadersIterator<string> {
    return this.#all().keys();
  }

  values(): HeadersIterator<string> {
    return this.#all().values();
  }

  getSetCookie(): string[] {
    return this.#all().getSetCookie();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.#all()[Symbol.iterator]();
  }

  #all(): Headers {
    this.#full ??= readHeaders(this.raw);
    return this.#full;
  }
}
