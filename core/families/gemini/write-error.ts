import type { ErrorKind, GatewayError } from '../../errors.ts';

/** @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes */
const STATUS_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'INVALID_ARGUMENT',
  request_too_large: 'INVALID_ARGUMENT',
  rate_limit: 'RESOURCE_EXHAUSTED',
  overloaded: 'UNAVAILABLE',
  upstream: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
  internal: 'INTERNAL',
};

/** google.rpc.RetryInfo: when to ask again, as Google's own 429s say it. */
export interface GeminiRetryInfo {
  '@type': 'type.googleapis.com/google.rpc.RetryInfo';
  retryDelay: string;
}

export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: GeminiRetryInfo[] };
}

/**
 * The wait, when one is known, goes in the body too: Gemini clients read `details`, not the
 * `retry-after` header (Gemini CLI waits a RetryInfo's delay instead of its own backoff).
 */
export function writeGeminiError(err: GatewayError): { status: number; body: GeminiErrorBody } {
  const status = err.status === 529 ? 503 : err.status;
  const error: GeminiErrorBody['error'] = { code: status, message: err.message, status: STATUS_BY_KIND[err.kind] };
  const wait = err.opts.retryAfter;
  if (wait !== undefined) error.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}s` }];
  return { status, body: { error } };
}
