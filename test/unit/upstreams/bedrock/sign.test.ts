import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../core/errors.ts';
import { type BedrockConfig, bedrockModelUrl, signBedrockRequest } from '../../../../core/upstreams/bedrock/sign.ts';
import { canonicalUri, sigV4Signature } from '../../../helpers/sigv4.ts';

const config: BedrockConfig = {
  type: 'bedrock',
  region: 'us-east-1',
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};
const now = new Date('2025-01-02T03:04:05.678Z');
const body = '{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}';

describe('independent SigV4 helper', () => {
  // Anchors the test helper itself to AWS's published SigV4 test-suite vectors.
  const base = {
    path: '/',
    headers: { host: 'example.amazonaws.com', 'x-amz-date': '20150830T123600Z' },
    body: '',
    secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    region: 'us-east-1',
    service: 'service',
    amzDate: '20150830T123600Z',
  };
  it.each([
    ['get-vanilla', 'GET', undefined, '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31'],
    ['post-vanilla', 'POST', undefined, '5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b'],
    ['get-vanilla-query-order-key-case', 'GET', 'Param2=value2&Param1=value1', 'b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500'],
  ])('reproduces %s', (_name, method, query, expected) => {
    expect(sigV4Signature({ ...base, method, ...(query ? { query } : {}) }).signature).toBe(expected);
  });
});

describe('bedrockModelUrl', () => {
  it('encodes the model id once, colons and ARN slashes included', () => {
    expect(bedrockModelUrl(config, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'converse')).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
    );
    expect(bedrockModelUrl({ ...config, baseUrl: 'http://127.0.0.1:9/' }, 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.x', 'invoke')).toBe(
      'http://127.0.0.1:9/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.x/invoke',
    );
  });
});

describe('signBedrockRequest', () => {
  it.each([
    ['an inference-profile id', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['an ARN', 'arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/abc123'],
  ])('signs %s for service "bedrock" with the double-encoded canonical path, as AWS computes it', async (_name, model) => {
    const url = bedrockModelUrl({ ...config, sessionToken: 'SESSION' }, model, 'converse');
    const headers = await signBedrockRequest({ ...config, sessionToken: 'SESSION' }, 'aws', { url, headers: { 'content-type': 'application/json' }, body }, { now });
    const path = new URL(url).pathname;
    const expected = sigV4Signature({
      method: 'POST',
      path,
      headers: { host: 'bedrock-runtime.us-east-1.amazonaws.com', 'x-amz-date': '20250102T030405Z', 'x-amz-security-token': 'SESSION' },
      body,
      secretAccessKey: config.secretAccessKey!,
      region: 'us-east-1',
      service: 'bedrock',
      amzDate: '20250102T030405Z',
    });
    expect(canonicalUri(path)).toContain(model.includes('arn') ? 'arn%253Aaws%253Abedrock' : 'v1%253A0');
    expect(headers).toEqual({
      'content-type': 'application/json',
      'x-amz-date': '20250102T030405Z',
      'x-amz-security-token': 'SESSION',
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250102/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date;x-amz-security-token, Signature=${expected.signature}`,
    });
  });

  it('signs without a session token and reuses derived keys through the cache', async () => {
    const cache = new Map<string, ArrayBuffer>();
    const url = bedrockModelUrl(config, 'openai.gpt-oss-120b-1:0', 'converse-stream');
    const first = await signBedrockRequest(config, 'aws', { url, headers: { 'content-type': 'application/json' }, body }, { now, cache });
    const second = await signBedrockRequest(config, 'aws', { url, headers: { 'content-type': 'application/json' }, body }, { now, cache });
    expect(first).toEqual(second);
    expect(first['x-amz-security-token']).toBeUndefined();
    expect(cache.size).toBe(1);
    expect(first.authorization).toMatch(/SignedHeaders=host;x-amz-date, Signature=[0-9a-f]{64}$/);
  });

  it('uses a Bedrock API key as a bearer token instead of SigV4', async () => {
    const headers = await signBedrockRequest({ type: 'bedrock', region: 'us-west-2', apiKey: 'bedrock-api-key-xyz' }, 'aws', { url: 'https://x/model/m/converse', headers: { 'content-type': 'application/json' }, body });
    expect(headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer bedrock-api-key-xyz' });
  });

  it('refuses a provider without credentials, without naming secrets', async () => {
    const err = await signBedrockRequest({ type: 'bedrock', region: 'us-east-1', accessKeyId: 'AKID' }, 'aws', { url: 'https://x/model/m/converse', headers: {}, body }).catch((e: unknown) => e);
    expect(isGatewayError(err) && err.kind).toBe('internal');
    expect((err as Error).message).toBe('Provider "aws" has neither an API key nor AWS credentials configured');
  });
});
