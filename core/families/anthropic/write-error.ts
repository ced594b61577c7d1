import type { ErrorKind, GatewayError } from '../../errors.ts';

/** @see https://docs.anthropic.com/en/api/errors */
const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  overloaded: 'overloaded_error',
  upstream: 'api_error',
  timeout: 'timeout_error',
  internal: 'api_error',
};

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
  /** The `request-id` header's value, as the API's HTTP error bodies carry it (not its stream's `error` events). */
  request_id?: string;
}

export function writeAnthropicError(err: GatewayError, requestId?: string): { status: number; body: AnthropicErrorBody } {
  // Overload is 529 on this API whatever status the upstream used (503 from OpenAI-compatible hosts
  // and Gemini): Claude Code and the SDK (OverloadedError) recognise it by that status (pitfall 20).
  const status = err.kind === 'overloaded' ? 529 : err.status;
  const body: AnthropicErrorBody = { type: 'error', error: { type: TYPE_BY_KIND[err.kind], message: err.message } };
  if (requestId !== undefined) body.request_id = requestId;
  return { status, body };
}
