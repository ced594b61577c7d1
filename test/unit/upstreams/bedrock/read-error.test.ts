import { describe, expect, it } from 'vitest';
import { bedrockError, readBedrockError, scrubAwsDetails } from '../../../../core/upstreams/bedrock/read-error.ts';
import { errorView as summary } from '../../../helpers/streams.ts';

function response(status: number, body: unknown, type?: string): Response {
  const headers = new Headers({ 'content-type': 'application/json', 'x-amzn-requestid': 'req-1' });
  if (type) headers.set('x-amzn-ErrorType', `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`);
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers });
}

describe('readBedrockError', () => {
  it.each([
    ['ThrottlingException', 429, 'rate_limit', 429],
    ['ServiceQuotaExceededException', 400, 'rate_limit', 429],
    ['ValidationException', 400, 'invalid_request', 400],
    ['ConflictException', 400, 'invalid_request', 400],
    ['ResourceNotFoundException', 404, 'not_found', 404],
    ['ModelNotReadyException', 429, 'overloaded', 529],
    ['ServiceUnavailableException', 503, 'overloaded', 529],
    ['ModelTimeoutException', 408, 'timeout', 504],
    ['InternalServerException', 500, 'upstream', 500],
    ['ModelErrorException', 424, 'upstream', 502],
  ])('%s (HTTP %i) → %s / %i, keeping the message', async (type, status, kind, outStatus) => {
    const err = await readBedrockError(response(status, { message: 'Something happened.' }, type));
    expect(summary(err)).toEqual({ kind, status: outStatus, message: 'Something happened.', code: type });
  });

  it('reads the type from the body when the header is missing (namespaced __type, Message spelling)', async () => {
    const err = await readBedrockError(response(400, { __type: 'com.amazon.coral.validate#ValidationException', Message: 'Malformed input request' }));
    expect(summary(err)).toEqual({ kind: 'invalid_request', status: 400, message: 'Malformed input request', code: 'ValidationException' });
  });

  it('never leaks IAM principals or account ids from AccessDeniedException', async () => {
    const err = await readBedrockError(response(403, {
      message: 'User: arn:aws:iam::123456789012:user/gateway is not authorized to perform: bedrock:InvokeModel on resource: arn:aws:bedrock:us-east-1::foundation-model/x',
    }, 'AccessDeniedException'));
    expect(summary(err)).toEqual({
      kind: 'permission',
      status: 403,
      message: 'Bedrock denied access to this model (check model access and the IAM policy of the gateway credentials)',
      code: 'AccessDeniedException',
    });
  });

  it.each(['UnrecognizedClientException', 'InvalidSignatureException', 'ExpiredTokenException'])('treats %s as a gateway configuration error', async (type) => {
    const err = await readBedrockError(response(403, { message: 'The security token included in the request is invalid. AKIAIOSFODNN7EXAMPLE' }, type));
    expect(err.kind).toBe('internal');
    expect(err.status).toBe(500);
    expect(err.message).not.toContain('AKIA');
  });

  it('classifies an unknown or non-JSON body by status without echoing it', async () => {
    const err = await readBedrockError(new Response('<html>bad gateway</html>', { status: 502 }));
    expect(summary(err)).toEqual({ kind: 'upstream', status: 502, message: 'Bedrock answered HTTP 502', code: undefined });
    expect(summary(await readBedrockError(response(429, {})))).toEqual({ kind: 'rate_limit', status: 429, message: 'Bedrock answered HTTP 429', code: undefined });
  });

  it('keeps retry-after', async () => {
    const res = response(429, { message: 'Too many requests' }, 'ThrottlingException');
    res.headers.set('retry-after', '7');
    expect((await readBedrockError(res)).opts.retryAfter).toBe(7);
  });
});

describe('bedrockError (stream exception names)', () => {
  it.each([
    ['throttlingException', 'rate_limit', 429],
    ['validationException', 'invalid_request', 400],
    ['modelStreamErrorException', 'upstream', 502],
    ['serviceUnavailableException', 'overloaded', 529],
    ['internalServerException', 'upstream', 500],
    ['modelTimeoutException', 'timeout', 504],
  ])('%s → %s', (type, kind, status) => {
    const err = bedrockError(type, 'boom');
    expect(summary(err)).toEqual({ kind, status, message: 'boom', code: type });
  });
});

describe('scrubAwsDetails', () => {
  it('removes ARNs, account ids and access key ids', () => {
    expect(scrubAwsDetails('arn:aws:bedrock:us-east-1:123456789012:inference-profile/x not found for 123456789012 (ASIAABCDEFGHIJKLMNOP)')).toBe(
      '<arn> not found for <account> (<access-key-id>)',
    );
  });
});
