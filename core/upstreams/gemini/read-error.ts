/** @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes */
import { GatewayError } from '../../errors.ts';
import { mapGeminiErrorStatus } from './map-error-status.ts';
import type { GeminiErrorDetail } from './wire-types.ts';
import type { UpstreamResponse } from '../types.ts';

export interface GeminiErrorContext {
  provider: string;
  /** Scrubbed from any message that would echo it. */
  apiKey?: string;
}

/**
 * A non-2xx Gemini response → GatewayError keeping the upstream status. Gemini wraps errors as
 * `{error:{code,message,status,details}}` (inside an array on the JSON-array stream); anything
 * else (an HTML page from a proxy, an empty body) is classified by HTTP status and never echoed.
 */
export async function readGeminiError(res: UpstreamResponse, ctx: GeminiErrorContext): Promise<GatewayError> {
  const text = await res.text().catch(() => '');
  const detail = parseErrorBody(text);
  const header = res.headers.get('retry-after');
  const retryHeader = header !== null && /^\d+$/.test(header.trim()) ? Number(header) : undefined;
  return readGeminiErrorDetail(detail ?? {}, ctx, { http: res.status, retryHeader, ...(!detail && text ? { cause: text.slice(0, 500) } : {}) });
}

interface DetailOptions {
  /** The HTTP status, when the error came as a response (a mid-stream error has only `code`). */
  http?: number;
  retryHeader?: number | undefined;
  cause?: unknown;
}

/** An error object (from a body or a mid-stream chunk) → GatewayError. */
export function readGeminiErrorDetail(detail: GeminiErrorDetail, ctx: GeminiErrorContext, opts: DetailOptions = {}): GatewayError {
  const { http } = opts;
  const invalidKey = detail.details?.some((d) => d.reason === 'API_KEY_INVALID') ?? false;
  const kind = invalidKey ? 'authentication' : mapGeminiErrorStatus(detail.status, http ?? detail.code);
  // Gemini answers a bad key with 400; to every client family it is the gateway's credential failing.
  const status = invalidKey ? 401 : (http ?? (typeof detail.code === 'number' ? detail.code : undefined));
  const retryAfter = readRetryDelay(detail) ?? opts.retryHeader;
  const message =
    kind === 'authentication'
      ? `Upstream "${ctx.provider}" rejected the gateway's credentials`
      : scrub(detail.message, ctx.apiKey) || `Upstream "${ctx.provider}" answered${status ? ` HTTP ${status}` : ' with an error'}`;
  return new GatewayError(kind, message, {
    ...(status !== undefined ? { status } : {}),
    ...(detail.status ? { code: detail.status } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
    ...(opts.cause !== undefined ? { cause: opts.cause } : {}),
  });
}

function parseErrorBody(text: string): GeminiErrorDetail | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(body)) body = body[0];
  const error = (body as { error?: unknown } | null)?.error;
  return typeof error === 'object' && error !== null ? (error as GeminiErrorDetail) : undefined;
}

/** google.rpc.RetryInfo `retryDelay` is a Duration string such as "7s" or "0.5s". */
function readRetryDelay(detail: GeminiErrorDetail): number | undefined {
  const info = detail.details?.find((d) => d['@type']?.endsWith('google.rpc.RetryInfo'));
  const match = typeof info?.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(info.retryDelay) : null;
  return match ? Math.ceil(Number(match[1])) : undefined;
}

function scrub(message: string | undefined, apiKey: string | undefined): string {
  if (typeof message !== 'string') return '';
  return apiKey ? message.split(apiKey).join('[redacted]') : message;
}
