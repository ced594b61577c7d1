import { describe, expect, it } from 'vitest';
import { type ErrorKind, GatewayError } from '../../../../core/errors.ts';
import { writeOpenAIError } from '../../../../core/families/openai/write-error.ts';

describe('writeOpenAIError', () => {
  // What api.openai.com sends for each case (type, code); the status picks the SDK's error class.
  const cases: [ErrorKind, { param?: string }, number, string, string | null][] = [
    ['invalid_request', { param: 'limit' }, 400, 'invalid_request_error', null],
    ['authentication', {}, 401, 'invalid_request_error', 'invalid_api_key'],
    ['permission', { param: 'model' }, 403, 'invalid_request_error', null],
    ['not_found', { param: 'model' }, 404, 'invalid_request_error', 'model_not_found'],
    ['not_found', {}, 404, 'invalid_request_error', null],
    ['method_not_allowed', {}, 405, 'invalid_request_error', null],
    ['request_too_large', {}, 413, 'invalid_request_error', 'request_too_large'],
    ['rate_limit', {}, 429, 'requests', 'rate_limit_exceeded'],
    ['overloaded', {}, 503, 'server_error', null],
    ['upstream', {}, 502, 'server_error', null],
    ['timeout', {}, 504, 'server_error', null],
    ['internal', {}, 500, 'server_error', null],
  ];

  it.each(cases)('%s %o → %i %s / %s', (kind, opts, status, type, code) => {
    const out = writeOpenAIError(new GatewayError(kind, 'what went wrong', opts));
    expect(out).toEqual({ status, body: { error: { message: 'what went wrong', type, param: opts.param ?? null, code } } });
  });

  it('keeps a code the error names itself', () => {
    expect(writeOpenAIError(new GatewayError('invalid_request', 'x', { code: 'context_length_exceeded' })).body.error.code).toBe('context_length_exceeded');
  });
});
