/** @see https://docs.anthropic.com/en/api/errors */
import type { ErrorKind } from '../../errors.ts';

interface ErrorClass {
  kind: ErrorKind;
  status: number;
}

const BY_TYPE: Record<string, ErrorClass> = {
  invalid_request_error: { kind: 'invalid_request', status: 400 },
  authentication_error: { kind: 'authentication', status: 401 },
  billing_error: { kind: 'permission', status: 402 },
  permission_error: { kind: 'permission', status: 403 },
  not_found_error: { kind: 'not_found', status: 404 },
  conflict_error: { kind: 'invalid_request', status: 409 },
  request_too_large: { kind: 'request_too_large', status: 413 },
  rate_limit_error: { kind: 'rate_limit', status: 429 },
  api_error: { kind: 'upstream', status: 500 },
  timeout_error: { kind: 'timeout', status: 504 },
  overloaded_error: { kind: 'overloaded', status: 529 },
};

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: 'invalid_request',
  401: 'authentication',
  402: 'permission',
  403: 'permission',
  404: 'not_found',
  408: 'timeout',
  413: 'request_too_large',
  429: 'rate_limit',
  504: 'timeout',
  529: 'overloaded',
};

/**
 * Anthropic error type (and HTTP status when there is one) → error kind. The type wins; the
 * status decides for unknown types and bodies that are not Anthropic's (a proxy in between).
 * Mid-stream errors have no status of their own, so the type's documented status is used.
 */
export function mapAnthropicErrorType(type: string | undefined, status?: number): ErrorClass {
  const known = type === undefined ? undefined : BY_TYPE[type];
  if (known) return { kind: known.kind, status: status ?? known.status };
  if (status === undefined) return { kind: 'upstream', status: 500 };
  const kind = KIND_BY_STATUS[status] ?? (status >= 500 ? 'upstream' : 'invalid_request');
  return { kind, status };
}
