import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../core/index.ts';
import { readWebStream } from './node-io.ts';

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
  #closed = false;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
  ) {
    this.method = req.method ?? 'GET';
    this.url = `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`;
    // The client going away before the answer finished aborts whatever reads `signal`.
    res.once('close', () => {
      if (res.writableFinished) return;
      this.#closed = true;
      this.#controller?.abort();
    });
  }

  get headers(): Headers {
    if (!this.#headers) {
      const headers = new Headers();
      const raw = this.req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      this.#headers = headers;
    }
    return this.#headers;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (this.#body === undefined) this.#body = this.method === 'GET' || this.method === 'HEAD' ? null : readWebStream(this.req);
    return this.#body;
  }

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#closed) this.#controller.abort();
    }
    return this.#controller.signal;
  }

  /** The whole body straight from node:http's chunks: no web stream in between. */
  bytes(): Promise<Uint8Array> {
    if (this.#body !== undefined) return new Response(this.#body).arrayBuffer().then((buffer) => new Uint8Array(buffer));
    this.#body = null;
    const req = this.req;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      // The client leaving mid-upload is not a gateway fault: a 499, not a logged 500.
      const gone = (cause?: unknown) => reject(new GatewayError('invalid_request', 'Client closed the request before sending its body', { status: 499, cause }));
      req.once('error', gone);
      req.once('close', () => {
        if (!req.complete) gone();
      });
    });
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
    return new Request(this.url, { method: this.method, headers: this.headers, signal: this.signal, body, duplex: 'half' } as RequestInit);
  }
}
