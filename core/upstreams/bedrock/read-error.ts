/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors */
import { type ErrorKind, GatewayError } from '../../errors.ts';
import type { UpstreamResponse } from '../types.ts';

interface ErrorClass {
  kind: ErrorKind;
  /** Absent: the kind's default status (overloaded → 529, which each family renders its own way). */
  status?: number;
  /** The upstream text is replaced: it names IAM principals, accounts or key ids. */
  message?: string;
}

const CREDENTIALS: ErrorClass = { kind: 'internal', message: "Bedrock rejected the gateway's AWS credentials" };

/** Exception names as in `x-amzn-ErrorType`, lower-cased so the stream's camelCase names match too. */
const BY_TYPE: Record<string, ErrorClass> = {
  validationexception: { kind: 'invalid_request' },
  conflictexception: { kind: 'invalid_request' },
  throttlingexception: { kind: 'rate_limit' },
  servicequotaexceededexception: { kind: 'rate_limit' },
  accessdeniedexception: { kind: 'permission', message: 'Bedrock denied access to this model (check model access and the IAM policy of the gateway credentials)' },
  resourcenotfoundexception: { kind: 'not_found' },
  modelnotreadyexception: { kind: 'overloaded' },
  serviceunavailableexception: { kind: 'overloaded' },
  modeltimeoutexception: { kind: 'timeout' },
  internalserverexception: { kind: 'upstream', status: 500 },
  modelerrorexception: { kind: 'upstream' },
  modelstreamerrorexception: { kind: 'upstream' },
  unrecognizedclientexception: CREDENTIALS,
  invalidsignatureexception: CREDENTIALS,
  incompletesignatureexception: CREDENTIALS,
  missingauthenticationtokenexception: CREDENTIALS,
  expiredtokenexception: { kind: 'internal', message: "The gateway's AWS session token has expired" },
};

const KIND_BY_STATUS: Record<number, ErrorKind> = {
  400: 'invalid_request',
  403: 'permission',
  404: 'not_found',
  408: 'timeout',
  413: 'request_too_large',
  429: 'rate_limit',
  503: 'overloaded',
};

/** A non-2xx Bedrock response → GatewayError. The exception type decides; the status only when it is unknown. */
export async function readBedrockError(res: UpstreamResponse): Promise<GatewayError> {
  const text = await res.text().catch(() => '');
  const body = parseBody(text);
  const type = typeFromHeader(res.headers.get('x-amzn-errortype')) ?? typeFromBody(body);
  const message = typeof body?.message === 'string' ? body.message : typeof body?.Message === 'string' ? body.Message : undefined;
  const retryAfter = Number(res.headers.get('retry-after') ?? NaN);
  return bedrockError(type, message, res.status, Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter : undefined);
}

/**
 * Exception type (header, body or stream `:exception-type`) + message → GatewayError. Used for
 * HTTP errors and for exception frames inside a stream (where `status` is absent).
 */
export function bedrockError(type: string | undefined, message: string | undefined, status?: number, retryAfter?: number): GatewayError {
  const known = type ? BY_TYPE[type.toLowerCase()] : undefined;
  const kind = known?.kind ?? (status === undefined ? 'upstream' : KIND_BY_STATUS[status] ?? (status >= 500 ? 'upstream' : 'invalid_request'));
  const text = known?.message ?? (message ? scrubAwsDetails(message) : `Bedrock answered ${status ? `HTTP ${status}` : 'with an error'}${type ? ` (${type})` : ''}`);
  return new GatewayError(kind, text, {
    ...(known?.status !== undefined ? { status: known.status } : {}),
    ...(type ? { code: type } : {}),
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  });
}

/** Removes what identifies the AWS account behind the gateway: ARNs, account ids, access key ids. */
export function scrubAwsDetails(message: string): string {
  return message
    .replace(/arn:aws[a-z-]*:[^\s"',]+/g, '<arn>')
    .replace(/\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, '<access-key-id>')
    .replace(/\b\d{12}\b/g, '<account>');
}

/** `ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/` → `ValidationException` */
function typeFromHeader(value: string | null): string | undefined {
  const type = value?.split(':')[0]?.trim();
  return type || undefined;
}

/** `__type` may be namespaced (`com.amazon.coral.service#ValidationException`). */
function typeFromBody(body: Record<string, unknown> | undefined): string | undefined {
  const raw = body?.__type ?? body?.code ?? body?.Code;
  if (typeof raw !== 'string' || !raw) return undefined;
  return raw.slice(raw.lastIndexOf('#') + 1).split(':')[0];
}

function parseBody(text: string): Record<string, unknown> | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
