/** The one internal error type; each family renders it in its own envelope (write-error.ts). */
export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'not_found'
  | 'method_not_allowed'
  | 'request_too_large'
  | 'rate_limit'
  | 'overloaded'
  | 'upstream'
  | 'timeout'
  | 'internal';

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_too_large: 413,
  rate_limit: 429,
  overloaded: 529,
  upstream: 502,
  timeout: 504,
  internal: 500,
};

export interface GatewayErrorOptions {
  /** Overrides the kind's default status (e.g. an upstream 503 kept as 503). */
  status?: number;
  /** Dot path of the offending field, e.g. `messages.0.role`. */
  param?: string;
  /** Seconds, forwarded as `retry-after`. */
  retryAfter?: number;
  /** Provider error type/code as the upstream sent it, for logs and the OpenAI `code` field. */
  code?: string;
  /**
   * Asking again cannot succeed (a spent budget; a request larger than its key's token limit):
   * sent as `x-should-retry: false`, which the official SDKs and Claude Code obey before status.
   */
  final?: boolean;
  cause?: unknown;
}

export class GatewayError extends Error {
  /** Checked by isGatewayError(): survives duplicated module copies, unlike instanceof. */
  readonly brand = 'GatewayError';
  constructor(
    readonly kind: ErrorKind,
    message: string,
    readonly opts: GatewayErrorOptions = {},
  ) {
    super(message, { cause: opts.cause });
  }
  get status(): number {
    return this.opts.status ?? STATUS_BY_KIND[this.kind];
  }
}

export function isGatewayError(err: unknown): err is GatewayError {
  return typeof err === 'object' && err !== null && (err as { brand?: unknown }).brand === 'GatewayError';
}

/** Anything thrown becomes a GatewayError; unknown errors become a generic 500 (details stay in the log). */
export function toGatewayError(err: unknown): GatewayError {
  if (isGatewayError(err)) return err;
  if (err instanceof Error && (err.name === 'TimeoutError')) {
    return new GatewayError('timeout', 'Upstream did not answer in time', { cause: err });
  }
  return new GatewayError('internal', 'Internal error', { cause: err });
}
