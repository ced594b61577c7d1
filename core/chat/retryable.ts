import type { GatewayError } from '../errors.ts';

/** Upstream trouble another route (or a later attempt) may not have: down, overloaded, rate-limited. */
export function isTransientUpstreamError(err: GatewayError): boolean {
  return err.kind === 'upstream' || err.kind === 'overloaded' || err.kind === 'rate_limit' || err.kind === 'timeout' || err.status >= 500;
}
