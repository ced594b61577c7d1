/** @see https://platform.openai.com/docs/guides/error-codes */
import { type ErrorKind, GatewayError } from '../../errors.ts';
import type { OpenAIErrorObject } from './types.ts';
import type { UpstreamResponse } from '../types.ts';

const MAX_MESSAGE = 500;

/** A non-2xx response → GatewayError with the upstream status kept. Never throws. */
export async function readOpenAIError(res: UpstreamResponse, name: string): Promise<GatewayError> {
  let text = '';
  try {
    text = await res.text();
  } catch {
    // A body that cannot be read still leaves the status to report.
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const retryAfter = res.status === 429 || res.status === 503 ? readRetryAfter(res.headers) : undefined;
  return readOpenAIErrorBody(body ?? text, name, res.status, retryAfter);
}

/**
 * An error body (HTTP or a mid-stream `data: {"error":…}`) → GatewayError. Without an HTTP status
 * (mid-stream), a numeric `code` (vLLM, OpenRouter) or the error type/code names the kind.
 */
export function readOpenAIErrorBody(body: unknown, name: string, status?: number, retryAfter?: number): GatewayError {
  const error = errorObject(body);
  const code = typeof error.code === 'string' ? error.code : error.type;
  const httpStatus = status ?? (typeof error.code === 'number' && error.code >= 400 && error.code < 600 ? error.code : undefined);
  const kind = httpStatus !== undefined ? kindForStatus(httpStatus) : kindForCode(`${error.type ?? ''} ${code ?? ''}`);
  // A rejected upstream key is our configuration problem; its message may quote part of the key.
  const detail = kind === 'authentication' ? 'authentication failed (check the provider apiKey in the gateway configuration)' : describe(error.message, httpStatus);
  return new GatewayError(kind, `Upstream ${name}: ${detail}`, {
    ...(httpStatus !== undefined && { status: httpStatus }),
    ...(retryAfter !== undefined && { retryAfter }),
    ...(code && { code }),
  });
}

function errorObject(body: unknown): OpenAIErrorObject {
  if (typeof body === 'string') return { message: body };
  if (typeof body !== 'object' || body === null) return {};
  const b = body as Record<string, unknown>;
  if (typeof b.error === 'string') return { message: b.error };
  if (typeof b.error === 'object' && b.error !== null) return b.error as OpenAIErrorObject;
  const message = typeof b.message === 'string' ? b.message : typeof b.detail === 'string' ? b.detail : undefined;
  return { message, type: typeof b.type === 'string' ? b.type : undefined, code: b.code as OpenAIErrorObject['code'] };
}

function describe(message: unknown, status: number | undefined): string {
  const text = typeof message === 'string' ? message.trim() : '';
  if (!text) return status ? `HTTP ${status}` : 'error';
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text;
}

function kindForStatus(status: number): ErrorKind {
  switch (status) {
    case 400:
    case 422:
      return 'invalid_request';
    case 401:
      return 'authentication';
    case 403:
      return 'permission';
    case 404:
      return 'not_found';
    case 408:
    case 504:
      return 'timeout';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit';
    case 503:
    case 529:
      return 'overloaded';
    default:
      return status < 500 ? 'invalid_request' : 'upstream';
  }
}

function kindForCode(code: string): ErrorKind {
  if (/rate_limit|insufficient_quota|too_many/i.test(code)) return 'rate_limit';
  if (/overload|unavailable/i.test(code)) return 'overloaded';
  if (/timeout/i.test(code)) return 'timeout';
  if (/invalid_request|context_length|bad_?request|unsupported/i.test(code)) return 'invalid_request';
  return 'upstream';
}

/** `retry-after-ms` first (OpenAI's finer header), then `retry-after` as seconds or an HTTP date. */
function readRetryAfter(headers: UpstreamResponse['headers']): number | undefined {
  const msText = headers.get('retry-after-ms');
  const ms = Number(msText);
  if (msText !== null && Number.isFinite(ms) && ms >= 0) return Math.ceil(ms / 1000);
  const value = headers.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
