import type { RouteTarget } from '../catalog.ts';
import type { GatewayError } from '../errors.ts';
import type { ChatRequest, ChatResult, StreamEvent, UpstreamKind } from '../ir.ts';

/** How core reaches the network; adapters inject a faster client where the runtime has one. */
export type UpstreamFetch = (request: Request) => Promise<Response>;

/** One upstream provider kind: the four translator directions plus optional token counting. */
export interface Upstream {
  readonly kind: UpstreamKind;
  /** ChatRequest → the HTTP request to send (async because Bedrock signs). */
  writeRequest(req: ChatRequest, target: RouteTarget): Request | Promise<Request>;
  /** A successful non-streaming body → ChatResult. */
  readResponse(body: unknown, req: ChatRequest): ChatResult;
  /** Response bytes → StreamEvents; a new instance per call. */
  readStream(req: ChatRequest): TransformStream<Uint8Array, StreamEvent>;
  /** A non-2xx response → GatewayError keeping the upstream status and message. */
  readError(res: Response): Promise<GatewayError>;
  /** The upstream's own input-token counter, where it has one. */
  countTokens?(req: ChatRequest, target: RouteTarget, fetch: UpstreamFetch, signal: AbortSignal): Promise<number>;
}

export type UpstreamFactory = (name: string, target: RouteTarget['config']) => Upstream;
