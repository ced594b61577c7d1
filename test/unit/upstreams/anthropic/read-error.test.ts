import { describe, expect, it } from 'vitest';
import { readAnthropicError } from '../../../../core/upstreams/anthropic/read-error.ts';
import { errorView } from '../../../helpers/streams.ts';

const errorBody = (type: string, message: string) => JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_1' });
const readOne = async (status: number, body: string, headers: Record<string, string> = {}) =>
  errorView(await readAnthropicError(new Response(body, { status, headers }), 'claude'));

describe('readAnthropicError', () => {
  it('maps each documented error type and keeps the status and message', async () => {
    expect(
      await Promise.all([
        readOne(400, errorBody('invalid_request_error', 'messages: text content blocks must be non-empty')),
        readOne(403, errorBody('permission_error', 'no access')),
        readOne(404, errorBody('not_found_error', 'model: claude-x')),
        readOne(413, errorBody('request_too_large', 'too big')),
        readOne(500, errorBody('api_error', 'internal')),
        readOne(529, errorBody('overloaded_error', 'Overloaded')),
        readOne(504, errorBody('timeout_error', 'timed out')),
      ]),
    ).toEqual([
      { kind: 'invalid_request', status: 400, message: 'messages: text content blocks must be non-empty', code: 'invalid_request_error', retryAfter: undefined },
      { kind: 'permission', status: 403, message: 'no access', code: 'permission_error', retryAfter: undefined },
      { kind: 'not_found', status: 404, message: 'model: claude-x', code: 'not_found_error', retryAfter: undefined },
      { kind: 'request_too_large', status: 413, message: 'too big', code: 'request_too_large', retryAfter: undefined },
      { kind: 'upstream', status: 500, message: 'internal', code: 'api_error', retryAfter: undefined },
      { kind: 'overloaded', status: 529, message: 'Overloaded', code: 'overloaded_error', retryAfter: undefined },
      { kind: 'timeout', status: 504, message: 'timed out', code: 'timeout_error', retryAfter: undefined },
    ]);
  });

  it('reads retry-after on rate limits', async () => {
    expect(await readOne(429, errorBody('rate_limit_error', 'slow down'), { 'retry-after': '17' })).toEqual({
      kind: 'rate_limit',
      status: 429,
      message: 'slow down',
      code: 'rate_limit_error',
      retryAfter: 17,
    });
  });

  it("never echoes the upstream's words about the gateway's credentials", async () => {
    expect(await readOne(401, errorBody('authentication_error', 'invalid x-api-key sk-ant-secret'))).toEqual({
      kind: 'authentication',
      status: 401,
      message: `Upstream "claude" rejected the gateway's credentials`,
      code: 'authentication_error',
      retryAfter: undefined,
    });
  });

  it('classifies non-JSON bodies by status without echoing them', async () => {
    expect(await Promise.all([readOne(502, '<html>Bad gateway</html>'), readOne(529, ''), readOne(504, 'upstream timeout'), readOne(418, 'teapot')])).toEqual([
      { kind: 'upstream', status: 502, message: 'Upstream "claude" answered HTTP 502', code: undefined, retryAfter: undefined },
      { kind: 'overloaded', status: 529, message: 'Upstream "claude" answered HTTP 529', code: undefined, retryAfter: undefined },
      { kind: 'timeout', status: 504, message: 'Upstream "claude" answered HTTP 504', code: undefined, retryAfter: undefined },
      { kind: 'invalid_request', status: 418, message: 'Upstream "claude" answered HTTP 418', code: undefined, retryAfter: undefined },
    ]);
  });
});
