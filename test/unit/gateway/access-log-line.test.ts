import { describe, expect, it } from 'vitest';
import { createGateway, writeAccessLogLine, type AccessLogEntry } from '../../../core/index.ts';

const base: AccessLogEntry = { time: '2026-11-29T14:00:00.123Z', id: 'req_01j9x', method: 'POST', path: '/api/anthropic/v1/messages', status: 200, ms: 0.41, key: 'me', model: 'claude-json', provider: 'anthropic-json', error: undefined };

// Strings a client or a configuration can put in a line: every one JSON.stringify escapes, and
// some it leaves alone.
const STRINGS = ['plain', '', 'quote " inside', 'back\\slash', 'new\nline', 'nul \u0000 and \u001f', 'tab\t', 'é ünïcödé', 'line sep \u2028', 'pair 😀', 'lone \ud800 high', 'lone \udfff low', '\udfff\ud800', '</script>', 'del \u007f'];

describe('writeAccessLogLine', () => {
  it('writes exactly what JSON.stringify writes of the entry the gateway builds', () => {
    expect(writeAccessLogLine(base)).toBe(JSON.stringify(base));
    for (const text of STRINGS) {
      for (const field of ['time', 'id', 'method', 'path', 'key', 'model', 'provider', 'error'] as const) {
        const entry = { ...base, [field]: text };
        expect(writeAccessLogLine(entry), `${field}: ${JSON.stringify(text)}`).toBe(JSON.stringify(entry));
      }
    }
  });

  it('leaves out the members that are undefined, keeping the order of the rest', () => {
    const bare: AccessLogEntry = { time: base.time, id: base.id, method: 'GET', path: '/v1/models', status: 401, ms: 0.02, key: undefined, model: undefined, provider: undefined, error: 'Missing API key' };
    expect(writeAccessLogLine(bare)).toBe(JSON.stringify(bare));
    expect(writeAccessLogLine({ ...bare, error: undefined, model: 'm' })).toBe(JSON.stringify({ ...bare, error: undefined, model: 'm' }));
  });

  it('writes numbers as JSON does, non-finite ones as null', () => {
    for (const ms of [0, -0, 1.5, 0.1 + 0.2, 1e21, 123456.78, 5e-7, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(writeAccessLogLine({ ...base, ms })).toBe(JSON.stringify({ ...base, ms }));
    }
    expect(writeAccessLogLine({ ...base, status: 529 })).toBe(JSON.stringify({ ...base, status: 529 }));
  });

  it('writes every member of the entries the gateway itself logs (a new member would be caught here)', async () => {
    const logs: AccessLogEntry[] = [];
    const gateway = createGateway(
      {
        keys: [{ id: 'me', key: 'sk-log-line-key' }],
        providers: { oss: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } },
        models: [{ id: 'gpt-oss-120b', routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] }],
      },
      { log: (entry) => logs.push(entry), logError: () => {} },
    );
    const key = { 'x-api-key': 'sk-log-line-key' };
    await gateway.fetch(new Request('http://gw.test/api/openai/v1/models', { headers: key }));
    await gateway.fetch(new Request('http://gw.test/api/openai/v1/models/gpt-oss-120b', { headers: key }));
    await gateway.fetch(new Request('http://gw.test/api/openai/v1/models'));
    await gateway.fetch(new Request('http://gw.test/api/anthropic/v1/messages', { method: 'POST', headers: { ...key, 'content-type': 'application/json' }, body: '{"model":"gpt-oss-120b","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}' }));
    expect(logs.length).toBe(4);
    expect(logs.some((entry) => entry.model !== undefined && entry.key !== undefined)).toBe(true);
    expect(logs.some((entry) => entry.error !== undefined)).toBe(true);
    for (const entry of logs) expect(writeAccessLogLine(entry)).toBe(JSON.stringify(entry));
  });
});
