import type { ReplyHeaders } from './reply.ts';
import type { HeadersLike } from '../upstreams/types.ts';

/**
 * Headers that must not be copied between hops: hop-by-hop ones, and the encoding/length pair
 * that fetch implementations keep after transparently decompressing a body.
 */
const DROPPED_RESPONSE = new Set([
  'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate',
  'proxy-authorization', 'content-encoding', 'content-length', 'set-cookie', 'alt-svc', 'server', 'date', 'via',
]);

/** Copies upstream response headers a client may see, leaving out hop-by-hop and encoding ones. */
export function copyResponseHeaders(from: HeadersLike, into: ReplyHeaders = {}): ReplyHeaders {
  from.forEach((value, name) => {
    if (!DROPPED_RESPONSE.has(name) && !name.startsWith('x-amz') && !name.startsWith('cf-')) into[name] = value;
  });
  return into;
}
