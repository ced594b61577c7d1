import { Agent, type Dispatcher } from 'undici';
import { streamOfReader, type ChunkReader, type HeadersLike, type UpstreamFetch, type UpstreamInit, type UpstreamResponse } from '../core/index.ts';
import { readChunks } from './node-io.ts';

type RawHeaders = Record<string, string | string[] | undefined>;

/**
 * The upstream pool. undici cuts an answer whose body is quiet for 300 s by default; a stream may
 * sit quiet that long while a model thinks, and runs as long as it likes once its headers are in
 * (their wait is bounded per call by the provider's `timeoutMs`), so there is no such limit here.
 */
export const UPSTREAM_AGENT_OPTIONS: Agent.Options = { keepAliveTimeout: 30_000, connections: 256, bodyTimeout: 0 };

/**
 * Upstream client for Node: undici's dispatcher API over a keep-alive pool. Node's global fetch
 * runs the full WHATWG fetch machinery per call and measured about five times slower here
 * (performance-notes.md); the answer is a plain object, not a web Response, and its body is
 * read straight from undici's stream unless core asks for a web stream.
 */
export function createNodeFetch(): UpstreamFetch {
  const agent = new Agent(UPSTREAM_AGENT_OPTIONS);
  // Not async: one promise per call (undici's), mapped by a `then`, is all the path pays for.
  const fetch = (url: string, init: UpstreamInit): Promise<UpstreamResponse> => {
    const target = readTarget(url);
    return agent
      .request({
        origin: target.origin,
        path: target.path,
        method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: init.headers as Record<string, string>,
        body: init.body as string | Uint8Array | null,
        // undici takes any EventTarget-like signal, so the adapter's ClientAbort goes in as it is.
        signal: init.signal ?? undefined,
        // undici's own header timer replaces the AbortController and timer core would add per call.
        ...(init.headersTimeoutMs !== undefined && { headersTimeout: init.headersTimeoutMs }),
      })
      .then(readAnswer, readRequestError);
  };
  return Object.assign(fetch, { enforcesHeadersTimeout: true });
}

function readAnswer({ statusCode, headers, body }: Dispatcher.ResponseData): UpstreamResponse {
  const empty = statusCode === 204 || statusCode === 304 || (statusCode >= 100 && statusCode < 200);
  if (empty) body.resume();
  return new NodeUpstreamResponse(statusCode, headers, empty ? null : body);
}

function readRequestError(err: unknown): never {
  if ((err as { code?: string }).code === 'UND_ERR_HEADERS_TIMEOUT') throw Object.assign(new Error('Upstream headers timed out', { cause: err }), { name: 'TimeoutError' });
  throw err;
}

/**
 * Origin and path of an upstream URL. The URLs come from the configuration (a provider's base URL
 * plus the model's path), so a few distinct strings repeat on every call: each is parsed once.
 */
const targets = new Map<string, { origin: string; path: string }>();
const TARGETS_LIMIT = 256;

function readTarget(url: string): { origin: string; path: string } {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: parsed.pathname + parsed.search };
    if (targets.size >= TARGETS_LIMIT) targets.clear();
    targets.set(url, target);
  }
  return target;
}

type UndiciBody = Dispatcher.ResponseData['body'];

class NodeUpstreamResponse implements UpstreamResponse {
  readonly ok: boolean;
  readonly headers: HeadersLike;
  #body: UndiciBody | null;
  #stream: ReadableStream<Uint8Array> | undefined;
  #taken = false;

  constructor(
    readonly status: number,
    raw: RawHeaders,
    body: UndiciBody | null,
  ) {
    this.ok = status >= 200 && status < 300;
    this.headers = new RecordHeaders(raw);
    this.#body = body;
  }

  get body(): ReadableStream<Uint8Array> | null {
    if (!this.#body) return null;
    this.#stream ??= streamOfReader(readChunks(this.#take()));
    return this.#stream;
  }

  reader(): ChunkReader {
    return readChunks(this.#take());
  }

  async json(): Promise<unknown> {
    return this.#body ? this.#take().json() : Promise.reject(new SyntaxError('Unexpected end of JSON input'));
  }

  async text(): Promise<string> {
    return this.#body ? this.#take().text() : '';
  }

  /** undici's own `arrayBuffer()` concatenates and copies; an answer in one chunk needs neither. */
  bytes(): Promise<Uint8Array> {
    if (!this.#body) return Promise.resolve(new Uint8Array(0));
    const body = this.#take();
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      body.on('data', (chunk: Buffer) => chunks.push(chunk));
      body.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      body.once('error', reject);
    });
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#body ? this.#take().arrayBuffer() : new ArrayBuffer(0);
  }

  #take(): UndiciBody {
    if (this.#taken) throw new TypeError('Body has already been read');
    this.#taken = true;
    return this.#body ?? emptyBody();
  }
}

function emptyBody(): UndiciBody {
  throw new TypeError('Response has no body');
}

/** undici's header object (lower-case names; repeated headers as arrays) as the `get`/`forEach` core reads. */
class RecordHeaders implements HeadersLike {
  constructor(private readonly raw: RawHeaders) {}

  get(name: string): string | null {
    const value = this.raw[name.toLowerCase()];
    if (value === undefined) return null;
    return Array.isArray(value) ? value.join(', ') : value;
  }

  forEach(callback: (value: string, name: string) => void): void {
    for (const name in this.raw) {
      const value = this.raw[name];
      if (value !== undefined) callback(Array.isArray(value) ? value.join(', ') : value, name);
    }
  }
}
