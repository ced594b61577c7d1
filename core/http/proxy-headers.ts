/**
 * Headers that must not be copied between hops: hop-by-hop ones, and the encoding/length pair
 * that fetch implementations keep after transparently decompressing a body.
 */
const DROPPED_RESPONSE = new Set([
  'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authenticate',
  'proxy-authorization', 'content-encoding', 'content-length', 'set-cookie', 'alt-svc', 'server', 'date', 'via',
]);

/** Copies upstream response headers a client may see, leaving out hop-by-hop and encoding ones. */
export function copyResponseHeaders(from: Headers, into: Headers): Headers {
  from.forEach((value, name) => {
    if (!DROPPED_RESPONSE.has(name) && !name.startsWith('x-amz') && !name.startsWith('cf-')) into.set(name, value);
  });
  return into;
}
