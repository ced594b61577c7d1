import { createHash, createHmac } from 'node:crypto';

/**
 * An independent SigV4 implementation (node:crypto, written from the AWS specification) used to
 * check the gateway's aws4fetch-based signer and to verify requests in the fake Bedrock server.
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */
export interface SigV4Input {
  method: string;
  /** The path exactly as sent on the wire (segments already percent-encoded once). */
  path: string;
  query?: string;
  /** Lower-case names → values, for the signed headers only. */
  headers: Record<string, string>;
  body: string | Uint8Array;
  secretAccessKey: string;
  region: string;
  service: string;
  /** `YYYYMMDDTHHMMSSZ` */
  amzDate: string;
}

/** RFC 3986 encoding as AWS's UriEncode: everything but A-Z a-z 0-9 - . _ ~ */
export function uriEncode(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Non-S3 services: each segment of the (decoded) path is URI-encoded twice. */
export function canonicalUri(wirePath: string): string {
  return wirePath
    .split('/')
    .map((segment) => uriEncode(uriEncode(decodeURIComponent(segment))))
    .join('/');
}

export function canonicalRequest(input: SigV4Input): { text: string; signedHeaders: string } {
  const names = Object.keys(input.headers).map((n) => n.toLowerCase()).sort();
  const lower = Object.fromEntries(Object.entries(input.headers).map(([k, v]) => [k.toLowerCase(), v]));
  const headerLines = names.map((n) => `${n}:${lower[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const query = (input.query ?? '')
    .split('&')
    .filter(Boolean)
    .map((pair) => pair.split('=').map((p) => uriEncode(decodeURIComponent(p ?? ''))))
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0))
    .map(([k, v]) => `${k}=${v ?? ''}`)
    .join('&');
  const payloadHash = createHash('sha256').update(input.body).digest('hex');
  const signedHeaders = names.join(';');
  return { text: [input.method, canonicalUri(input.path), query, headerLines, signedHeaders, payloadHash].join('\n'), signedHeaders };
}

export function sigV4Signature(input: SigV4Input): { signature: string; signedHeaders: string; scope: string; canonical: string } {
  const day = input.amzDate.slice(0, 8);
  const scope = `${day}/${input.region}/${input.service}/aws4_request`;
  const { text, signedHeaders } = canonicalRequest(input);
  const stringToSign = ['AWS4-HMAC-SHA256', input.amzDate, scope, createHash('sha256').update(text).digest('hex')].join('\n');
  let key: Buffer = createHmac('sha256', `AWS4${input.secretAccessKey}`).update(day).digest();
  for (const part of [input.region, input.service, 'aws4_request']) key = createHmac('sha256', key).update(part).digest();
  return { signature: createHmac('sha256', key).update(stringToSign).digest('hex'), signedHeaders, scope, canonical: text };
}

/** Parses `AWS4-HMAC-SHA256 Credential=AKID/day/region/service/aws4_request, SignedHeaders=a;b, Signature=hex`. */
export function parseAuthorization(value: string): { accessKeyId: string; scope: string; signedHeaders: string[]; signature: string } | undefined {
  const match = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(value);
  if (!match) return undefined;
  return { accessKeyId: match[1]!, scope: match[2]!, signedHeaders: match[3]!.split(';'), signature: match[4]! };
}
