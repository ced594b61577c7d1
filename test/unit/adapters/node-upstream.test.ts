import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readChunks } from '../../../adapters/node-io.ts';

describe('readChunks (a Node Readable as a chunk reader)', () => {
  it('returns buffered chunks at once, waits for later ones, then ends', async () => {
    const source = new PassThrough();
    source.write('a');
    const reader = readChunks(source);
    expect(String((await reader.read()).value)).toBe('a');
    const next = reader.read();
    setTimeout(() => source.end('b'), 5);
    expect(String((await next).value)).toBe('b');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('rejects a pending read when the source fails', async () => {
    const source = new PassThrough();
    const reader = readChunks(source);
    const pending = reader.read();
    source.destroy(new Error('reset'));
    await expect(pending).rejects.toThrow('reset');
  });

  it('cancel destroys the source without an unhandled error', async () => {
    const source = new PassThrough();
    await readChunks(source).cancel(new Error('client gone'));
    expect(source.destroyed).toBe(true);
  });
});
