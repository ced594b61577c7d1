import type { ReplyHeaders } from './reply.ts';
import type { HeadersLike } from '../upstreams/types.ts';

/**
 * The headers a relayed answer keeps from its upstream: the content type, nothing else. The rest
 * of what a provider sends is about the operator's account (`anthropic-organization-id`,
 * `openai-organization`, rate-limit counters for the whole account rather than the caller's key),
 * the provider's machinery (`cf-ray`, `x-envoy-upstream-service-time`, `server-timing`) or the
 * provider's own representation (`etag`, `last-modified`, `accept-ranges`), none of it true of the
 * gateway's answer. Dropping it also gives a key holder the same headers whether a route relays
 * or translates.
 */
export function readRelayedHeaders(from: Pick<HeadersLike, 'get'>): ReplyHeaders {
  const type = from.get('content-type');
  return type === null ? {} : { 'content-type': type };
}
