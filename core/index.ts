/**
 * Switchyard's runtime-free core: `createGateway(config)` returns a web-standard
 * `{ fetch(request) }` handler. Adapters in `adapters/` wrap it for Bun, Deno, Node and Lambda.
 */
export { createGateway, type Gateway, type GatewayOptions } from './gateway.ts';
export { readConfig, ConfigError, GatewayConfig, type GatewayConfigInput, type ProviderConfig, type ModelConfig } from './config.ts';
export { buildDefaultConfig } from './default-config.ts';
export { GatewayError, isGatewayError, type ErrorKind } from './errors.ts';
export type { AccessLogEntry } from './context.ts';
export { writeAccessLogLine } from './write-access-log-line.ts';
export type { KeyVerifier, KeyRecord } from './keys.ts';
export type { MaybePromise } from './maybe-promise.ts';
export type { UpstreamFetch, UpstreamInit, UpstreamResponse, HeadersLike } from './upstreams/types.ts';
export { Reply, replyToResponse, streamOfReader, type BufferedChunks, type ChunkReader, type ReplyBody, type ReplyHeaders } from './http/reply.ts';
export { sha256Hex } from './http/sha256.ts';
export { ClientAbort, CLIENT_SIGNAL, type ClientSignal } from './http/client-signal.ts';
