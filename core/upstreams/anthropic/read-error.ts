/** @see https://docs.anthropic.com/en/api/errors */
import { GatewayError } from '../../errors.ts';
import { mapAnthropicErrorType } from './map-error-type.ts';
import type { UpstreamResponse } from '../types.ts';

/**
 * A non-2xx Anthropic response → GatewayError with the upstream status kept. Bodies that are not
 * Anthropic's (HTML from a proxy, empty) are classified by status alone and never echoed.
 */
export async function readAnthropicError(res: UpstreamResponse, provider: string): Promise<GatewayError> {
  const text = await res.text().catch(() => '');
  const error = parseError(text);
  const { kind, status } = mapAnthropicErrorType(error?.type, res.status);
  const retryAfter = readRetryAfter(res.headers.get('retry-after'));
  const message =
    kind === 'authentication'
      ? `Upstream "${provider}" rejected the gateway's credentials`
      : error?.message || `Upstream "${provider}" answered HTTP ${res.status}`;
  return new GatewayError(kind, message, {
    status,
    ...(error?.type ? { code: error.type } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(error ? {} : { cause: text.slice(0, 500) }),
  });
}

/** Mid-stream `event: error` payload → GatewayError with the status its type implies. */
export function readAnthropicErrorEvent(payload: unknown, provider: string): GatewayError {
  const error = (payload as { error?: { type?: unknown; message?: unknown } } | null)?.error;
  const type = typeof error?.type === 'string' ? error.type : undefined;
  const { kind, status } = mapAnthropicErrorType(type);
  const message = kind === 'authentication'
    ? `Upstream "${provider}" rejected the gateway's credentials`
    : typeof error?.message === 'string' && error.message ? error.message : `Upstream "${provider}" reported an error mid-stream`;
  return new GatewayError(kind, message, { status, ...(type ? { code: type } : {}) });
}

function parseError(text: string): { type?: string; message?: string } | undefined {
  try {
    const body = JSON.parse(text) as { error?: { type?: unknown; message?: unknown } };
    const error = body?.error;
    if (typeof error !== 'object' || error === null) return undefined;
    return {
      ...(typeof error.type === 'string' ? { type: error.type } : {}),
      ...(typeof error.message === 'string' ? { message: error.message } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Seconds, from either form the header allows (delta-seconds or an HTTP date). */
function readRetryAfter(value: string | null): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
