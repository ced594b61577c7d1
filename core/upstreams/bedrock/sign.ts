/** @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html */
import { AwsV4Signer } from 'aws4fetch';
import type { ProviderConfig } from '../../config.ts';
import { GatewayError } from '../../errors.ts';

export type BedrockConfig = Extract<ProviderConfig, { type: 'bedrock' }>;

export interface SignOptions {
  /** Signing time; tests fix it, production uses the clock. */
  now?: Date;
  /** Derived signing keys by (secret, day, region, service): saves four HMACs per request. */
  cache?: Map<string, ArrayBuffer>;
}

/** Endpoint without trailing slash: config.baseUrl or the regional runtime endpoint. */
export function bedrockBaseUrl(config: BedrockConfig): string {
  return (config.baseUrl ?? `https://bedrock-runtime.${config.region}.amazonaws.com`).replace(/\/+$/, '');
}

/** `/model/{id}/{action}` with the id encoded once, as the AWS SDK sends it (`:` → `%3A`, `/` → `%2F`). */
export function bedrockModelUrl(config: BedrockConfig, modelId: string, action: string): string {
  return `${bedrockBaseUrl(config)}/model/${encodeURIComponent(modelId)}/${action}`;
}

/**
 * Adds authentication to a POST: a Bedrock API key as a bearer token, or SigV4 for service
 * `bedrock` (not `bedrock-runtime`, which aws4fetch would guess from the host). aws4fetch encodes
 * the already-encoded path once more, which is the canonical URI AWS expects for every service
 * but S3 (`%3A` → `%253A`). Returns the full header set to send.
 */
export async function signBedrockRequest(
  config: BedrockConfig,
  provider: string,
  request: { url: string; headers: Record<string, string>; body: string },
  opts: SignOptions = {},
): Promise<Record<string, string>> {
  if (config.apiKey) return { ...request.headers, authorization: `Bearer ${config.apiKey}` };
  if (!config.accessKeyId || !config.secretAccessKey) {
    throw new GatewayError('internal', `Provider "${provider}" has neither an API key nor AWS credentials configured`);
  }
  const cache = opts.cache;
  if (cache && cache.size > 8) cache.clear();
  const signer = new AwsV4Signer({
    method: 'POST',
    url: request.url,
    headers: request.headers,
    body: request.body,
    accessKeyId: config.accessKeyId,
    secretAccessKey: config.secretAccessKey,
    ...(config.sessionToken ? { sessionToken: config.sessionToken } : {}),
    service: 'bedrock',
    region: config.region,
    ...(cache ? { cache } : {}),
    ...(opts.now ? { datetime: amzDate(opts.now) } : {}),
  });
  const signed = await signer.sign();
  const out: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}

/** `20250102T030405Z` */
export function amzDate(date: Date): string {
  return date.toISOString().replace(/[:-]|\.\d{3}/g, '');
}
