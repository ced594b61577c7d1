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

export interface GeminiErrorBody {
  error: { code: number; message: string; status: string };
}

export function writeGeminiError(err: GatewayError): { status: number; body: GeminiErrorBody } {
  const status = err.status === 529 ? 503 : err.status;
  return { status, body: { error: { code: status, message: err.message, status: STATUS_BY_KIND[err.kind] } } };
}
