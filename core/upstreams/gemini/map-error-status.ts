/** @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes */
import type { ErrorKind } from '../../errors.ts';

const BY_STATUS: Record<string, ErrorKind> = {
  INVALID_ARGUMENT: 'invalid_request',
  FAILED_PRECONDITION: 'invalid_request',
  OUT_OF_RANGE: 'invalid_request',
  ABORTED: 'invalid_request',
  ALREADY_EXISTS: 'invalid_request',
  UNIMPLEMENTED: 'invalid_request',
  UNAUTHENTICATED: 'authentication',
  PERMISSION_DENIED: 'permission',
  NOT_FOUND: 'not_found',
  RESOURCE_EXHAUSTED: 'rate_limit',
  INTERNAL: 'upstream',
  UNKNOWN: 'upstream',
  DATA_LOSS: 'upstream',
  CANCELLED: 'upstream',
  UNAVAILABLE: 'overloaded',
  DEADLINE_EXCEEDED: 'timeout',
};

const BY_HTTP: Record<number, ErrorKind> = {
  400: 'invalid_request',
  401: 'authentication',
  403: 'permission',
  404: 'not_found',
  413: 'request_too_large',
  429: 'rate_limit',
  503: 'overloaded',
  504: 'timeout',
};

/** google.rpc status (preferred) or HTTP status → error kind. */
export function mapGeminiErrorStatus(status: string | undefined, http: number | undefined): ErrorKind {
  const byStatus = status ? BY_STATUS[status] : undefined;
  if (byStatus) return byStatus;
  if (http === undefined) return 'upstream';
  return BY_HTTP[http] ?? (http >= 500 ? 'upstream' : 'invalid_request');
}
