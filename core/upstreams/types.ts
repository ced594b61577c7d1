import type { RouteTarget } from '../catalog.ts';
import type { GatewayError } from '../errors.ts';
import type { JsonBody } from '../http/json-body.ts';
import type { ChunkReader } from '../http/reply.ts';
import type { ChatRequest, ChatResult, SourceFamily, StreamEvent, UpstreamKind } from '../ir.ts';

/**
 * How core reaches the network: the `fetch(url, init)` signature, so the global fetch fits and
 * adapters can inject a faster client (the Node and Bun adapters pass their own sockets client).
 */
export type UpstreamFetch = ((url: string, init: UpstreamInit) => Promise<UpstreamResponse>) & {
  /**
   * Set by a client that enforces `init.headersTimeoutMs` itself, rejecting with an error named
   * `TimeoutError` (the adapters' own clients, and undici's on Node). Core then arms no timer and no
   * AbortController of its own per call; for any other fetch it does. Such a client also gets the
   * client's signal as it is in `init.signal`, which may be an adapter's `ClientSignal` (state and
   * abort listeners only) rather than an AbortSignal; any other fetch always gets an AbortSignal.
   */
  readonly enforcesHeadersTimeout?: boolean;
};

export interface UpstreamInit extends RequestInit {
  /** How long to wait for the response headers (see `enforcesHeadersTimeout`). */
  headersTimeoutMs?: number;
}

export interface HeadersLike {
  get(name: string): string | null;
  forEach(callback: (value: string, name: string) => void): void;
}

/**
 * The part of a web `Response` core reads from an upstream answer, so an adapter's client can
 * answer with something lighter. `reader()`, when offered, gives the body without a web stream;
 * core never touches `body` then.
 */
export interface UpstreamResponse {
  readonly status: number;
  readonly ok: boolean;
  readonly headers: HeadersLike;
  readonly body: ReadableStream<Uint8Array> | null;
  reader?(): ChunkReader;
  json(): Promise<unknown>;
  text(): Promise<string>;
  arrayBuffer(): Promise<ArrayBuffer>;
  /** The body whole as bytes, where the client can give them without copying into an ArrayBuffer. */
  bytes?(): Promise<Uint8Array>;
  /**
   * The body whole, at once, when all of it has already arrived (a short stream usually comes
   * with its headers); undefined leaves the body unread, for `reader()` or `body`.
   */
  takeWhole?(): Uint8Array | undefined;
}

/** A POST an upstream writer wants sent; the pipeline adds the abort signal and time-out. */
export interface UpstreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** The request ran Anthropic's web search as the provider's own (see ReadRequest). */
  webSearch?: boolean;
}

/** Collects what a translation changed or dropped; reported in the `x-switchyard-warnings` header. */
export type Warn = (message: string) => void;

/**
 * What a reader of an answer is given of the request: its model, and whether the client asked for
 * Anthropic's web search (a Gemini reader then writes Google Search grounding as its blocks); not
 * the prompt, which a stream's reader would otherwise hold for as long as the stream runs.
 */
export type ReadRequest = Pick<ChatRequest, 'model'> & { webSearch?: boolean };

/** One upstream provider kind: the four translator directions plus optional token counting. */
export interface Upstream {
  readonly kind: UpstreamKind;
  /**
   * ChatRequest → the HTTP request to send (async because Bedrock signs). Throws
   * GatewayError('invalid_request') for what the upstream cannot express; calls `warn` for what
   * it dropped harmlessly.
   */
  writeRequest(req: ChatRequest, target: RouteTarget, warn: Warn): UpstreamRequest | Promise<UpstreamRequest>;
  /** A successful non-streaming body → ChatResult. */
  readResponse(body: unknown, req: ReadRequest): ChatResult;
  /** Response bytes → StreamEvents; a new instance per call. */
  readStream(req: ReadRequest): TransformStream<Uint8Array, StreamEvent>;
  /** A non-2xx response → GatewayError keeping the upstream status and message. */
  readError(res: UpstreamResponse): Promise<GatewayError>;
  /**
   * Same-family fast path (Claude-style client → Anthropic or Claude on Bedrock, Gemini-style →
   * Gemini): the client's body with only the model rewritten, the response relayed as it comes.
   */
  passthrough?: Passthrough;
  /** The upstream's own input-token counter, where it has one. */
  countTokens?(req: ChatRequest, target: RouteTarget, send: (request: UpstreamRequest) => Promise<UpstreamResponse>): Promise<number>;
}

export type UpstreamFactory = (name: string, target: RouteTarget['config']) => Upstream;

export interface Passthrough {
  /** The client family whose bodies this upstream takes verbatim. */
  family: SourceFamily;
  /** Narrows the fast path to some routes (Bedrock: Claude models only); all when absent. */
  accepts?(target: RouteTarget): boolean;
  /** The writer rebuilds the body from its object (Bedrock) instead of splicing its bytes. */
  readsObject?: boolean;
  writeRequest(call: PassthroughCall): UpstreamRequest | Promise<UpstreamRequest>;
  /**
   * The body to relay for a 2xx response; absent means the upstream body untouched. Bedrock uses
   * it to reframe its binary event-stream as the family's SSE.
   */
  readBody?(res: UpstreamResponse, call: PassthroughCall): ReadableStream<Uint8Array>;
}

export interface PassthroughCall {
  target: RouteTarget;
  /**
   * The client's body (bytes, text and parsed object); only `model` may be rewritten. Writers send
   * its bytes or splice the model into them (see json-splice.ts) rather than serialise the object
   * again, and read `source.object` only when they must (it may be parsed again for them).
   */
  source: JsonBody;
  /** The client's headers (version and beta headers are forwarded from here). */
  headers: Pick<HeadersLike, 'get'>;
  action: 'messages' | 'count_tokens' | 'generateContent' | 'streamGenerateContent' | 'countTokens';
  stream: boolean;
  /** Reports what the fast path had to change after all (e.g. foreign thinking blocks removed). */
  warn?: Warn;
}
