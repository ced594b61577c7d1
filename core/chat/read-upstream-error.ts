import { GatewayError, isGatewayError } from '../errors.ts';
import type { Upstream, UpstreamResponse } from '../upstreams/types.ts';

/**
 * An upstream's error, as the client should see it. A provider rejecting the *gateway's*
 * credentials is an operator problem: answering 401 would tell the client its own Switchyard key
 * is wrong (Claude Code then asks the user to log in again), so it becomes a 502 instead.
 */
export function toClientError<T>(err: T): T | GatewayError {
  if (!isGatewayError(err) || err.kind !== 'authentication') return err;
  return new GatewayError('upstream', err.message, { status: 502, code: err.opts.code, cause: err });
}

export async function readUpstreamError(upstream: Upstream, res: UpstreamResponse): Promise<GatewayError> {
  return toClientError(await upstream.readError(res));
}
