import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogWriter, LOG_FLUSH_MS, writeAccessLogLineNative } from '../../../adapters/log-writer.ts';
import { writeAccessLogLine, type AccessLogEntry } from '../../../core/index.ts';

const entry = (i: number): AccessLogEntry => ({ time: '2026-11-27T20:00:00.000Z', id: `req_${i}`, method: 'POST', path: '/api/anthropic/v1/messages', status: 200, ms: 1.5, key: 'me', model: 'claude', provider: 'anthropic', error: undefined });

describe('createLogWriter', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the entries that came within LOG_FLUSH_MS of the first as JSON lines, in order, in one write', () => {
    const writes: string[] = [];
    const writer = createLogWriter((text) => writes.push(text));
    writer.log(entry(0));
    vi.advanceTimersByTime(LOG_FLUSH_MS - 1);
    // Later entries join the first one's wait; they do not extend it.
    for (let i = 1; i < 3; i++) writer.log(entry(i));
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n')).toEqual([...[0, 1, 2].map((i) => JSON.stringify(entry(i))), '']);
    // An undefined field is left out, as JSON.stringify leaves it.
    expect(JSON.parse(writes[0]!.split('\n')[0]!)).not.toHaveProperty('error');
    writer.log(entry(3));
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(writes).toHaveLength(2);
    expect(writes[1]).toBe(`${JSON.stringify(entry(3))}\n`);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('writes at once when many entries wait, and flush() writes what is left and stops the wait', () => {
    const writes: string[] = [];
    const writer = createLogWriter((text) => writes.push(text));
    for (let i = 0; i < 300; i++) writer.log(entry(i));
    expect(writes).toHaveLength(1);
    expect(writes[0]!.split('\n')).toHaveLength(257);
    writer.flush();
    expect(writes).toHaveLength(2);
    expect(writes.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line).id)).toEqual(Array.from({ length: 300 }, (_, i) => `req_${i}`));
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(LOG_FLUSH_MS);
    expect(writes).toHaveLength(2);
  });

  it('makes each line with the writer it is given, after the wait it is given', () => {
    const writes: string[] = [];
    const writer = createLogWriter((text) => writes.push(text), (e) => `#${e.id}`, 20);
    writer.log(entry(1));
    writer.log(entry(2));
    vi.advanceTimersByTime(19);
    expect(writes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(writes).toEqual(['#req_1\n#req_2\n']);
  });
});

describe('writeAccessLogLineNative', () => {
  it('writes the line writeAccessLogLine writes, escapes, undefined members and non-finite numbers included', () => {
    const odd = ['quote " and \\', 'new\nline \u0000', 'lone \ud800', 'é 😀 \u2028'];
    const entries: AccessLogEntry[] = [entry(0), { ...entry(1), key: undefined, model: undefined, provider: undefined, error: 'Missing API key', ms: Number.NaN }];
    for (const text of odd) entries.push({ ...entry(2), path: text, error: text, model: text });
    for (const e of entries) expect(writeAccessLogLineNative(e)).toBe(writeAccessLogLine(e));
  });
});
