import type { ErrorKind, GatewayError } from '../../errors.ts';

/**
 * OpenAI's own `type`s: every client error is `invalid_request_error` (a bad key, a model the
 * project may not use and an unknown model included; the `code` tells them apart) and a request
 * rate limit is `requests`. Clients that branch on `type` see what the API sends.
 * @see https://platform.openai.com/docs/guides/error-codes
 */
const TYPE_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_request_error',
  permission: 'invalid_request_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  request_too_large: 'invalid_request_error',
  rate_limit: 'requests',
  overloaded: 'server_error',
  upstream: 'server_error',
  timeout: 'server_error',
  internal: 'server_error',
};

const CODE_BY_KIND: Partial<Record<ErrorKind, string>> = {
  authentication: 'invalid_api_key',
  rate_limit: 'rate_limit_exceeded',
  request_too_large: 'request_too_large',
};

/** OpenAI's code for a 404 about the model; any other 404 (an unknown path, an admin key id) has none. */
function readCode(err: GatewayError): string | null {
  if (err.opts.code) return err.opts.code;
  if (err.kind === 'not_found') return err.opts.param === 'model' ? 'model_not_found' : null;
  return CODE_BY_KIND[err.kind] ?? null;
}

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export function writeOpenAIError(err: GatewayError): { status: number; body: OpenAIErrorBody } {
  // 529 means nothing to OpenAI clients; 503 keeps them retrying.
  const status = err.status === 529 ? 503 : err.status;
  return {
    status,
    body: {
      error: {
        message: err.message,
        type: TYPE_BY_KIND[err.kind],
        param: err.opts.param ?? null,
        code: readCode(err),
      },
    },
  };
}
