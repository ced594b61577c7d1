import { describe, expect, it } from 'vitest';
import { withErrorFrame } from '../../../core/http/stream-guard.ts';
import { collect } from '../../helpers/streams.ts';

describe('withErrorFrame', () => {
  it('passes chunks through and turns a failure into the family frame', async () => {
    let n = 0;
    const source = new ReadableStream<string>({
      pull(controller) {
        if (n++ < 2) controller.enqueue(`chunk${n}`);
        else controller.error(new Error('upstream broke'));
      },
    });
    expect(await collect(withErrorFrame(source, (err) => [`error: ${(err as Error).message}`]))).toEqual(['chunk1', 'chunk2', 'error: upstream broke']);
  });

  it('a client cancel reaches the source, and the read pending at that moment does not throw', async () => {
    let cancelled: unknown;
    let release!: () => void;
    const source = new ReadableStream<string>({
      pull: () => new Promise<void>((resolve) => (release = resolve)),
      cancel(reason) {
        cancelled = reason;
      },
    });
    const frames: unknown[] = [];
    const guarded = withErrorFrame(source, (err) => {
      frames.push(err);
      return ['frame'];
    });
    const reader = guarded.getReader();
    const pending = reader.read();
    await new Promise((r) => setTimeout(r, 5));
    await reader.cancel('client gone');
    release();
    await expect(pending).resolves.toEqual({ done: true, value: undefined });
    await new Promise((r) => setTimeout(r, 5));
    expect(cancelled).toBe('client gone');
    expect(frames).toEqual([]);
  });
});
