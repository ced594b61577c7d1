import { describe, expect, it } from 'vitest';
import { type Stage, stageStream } from '../../../core/http/stage.ts';
import type { BufferedChunks, ChunkReader } from '../../../core/http/reply.ts';
import { openStaged } from '../../../core/http/staged-stream.ts';
import { collect, fromArray } from '../../helpers/streams.ts';

/** Splits "a,b" into items; "!" throws; "stop" emits "stopped" and stops. */
function splitter(): Stage<string, string> {
  let stopped = false;
  return {
    push(chunk, emit) {
      for (const item of chunk.split(',')) {
        if (item === '!') throw new Error('boom');
        if (item === 'stop') {
          emit('stopped');
          stopped = true;
          return;
        }
        if (item) emit(item);
      }
    },
    end(emit) {
      if (!stopped) emit('end');
    },
    get stopped() {
      return stopped;
    },
  };
}

const upper: Stage<string, string> = { push: (item, emit) => emit(item.toUpperCase()), end: (emit) => emit('FLUSH') };
const join = (items: string[]) => (items.length ? items.join('|') : undefined);

/** A source that records whether it was cancelled. */
function source(chunks: string[]) {
  const state = { cancelled: false as unknown };
  let i = 0;
  const stream = new ReadableStream<string>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.close();
    },
    cancel(reason) {
      state.cancelled = reason ?? true;
    },
  });
  return { stream, state };
}

/**
 * A chunk reader like the adapters' upstream answers: `arrived` chunks are here, `readBuffered`
 * takes them, and `ended` says whether the body ended with them; later reads wait for `more`.
 */
function bufferedSource(arrived: string[], ended: boolean) {
  const state = { cancelled: false as unknown, reads: 0 };
  let queue = [...arrived];
  let done = ended;
  let wake: ((value: ReadableStreamReadResult<string>) => void) | undefined;
  const reader: ChunkReader<string> = {
    read() {
      state.reads++;
      const chunk = queue.shift();
      if (chunk !== undefined) return Promise.resolve({ done: false, value: chunk });
      if (done) return Promise.resolve({ done: true, value: undefined });
      return new Promise((resolve) => (wake = resolve));
    },
    cancel(reason) {
      state.cancelled = reason ?? true;
      return Promise.resolve();
    },
    readBuffered(): BufferedChunks<string> {
      const chunks = queue;
      queue = [];
      return { chunks, done };
    },
  };
  const more = (chunk: string | undefined) => {
    if (chunk === undefined) done = true;
    else queue.push(chunk);
    const w = wake;
    wake = undefined;
    if (w) w(queue.length ? { done: false, value: queue.shift()! } : { done: true, value: undefined });
  };
  return { reader, state, more };
}

describe('openStaged', () => {
  it('peeks the first item and emits one chunk per upstream read', async () => {
    const { first, stream } = await openStaged(fromArray(['', 'a,b', 'c']), stageStream(splitter()));
    expect(first).toBe('a');
    expect(await collect(stream.pipe(upper).toReadable(() => ['ERR'], join))).toEqual(['A|B', 'C', 'END|FLUSH']);
  });

  it('accepts a TransformStream without a stage (piped as it is)', async () => {
    const plain = new TransformStream<string, string>({ transform: (chunk, c) => c.enqueue(`${chunk}!`) });
    const { first, stream } = await openStaged(fromArray(['a', 'b']), plain);
    expect(first).toBe('a!');
    expect(await collect(stream.pipe(upper).toReadable(() => ['ERR'], join))).toEqual(['A!', 'B!', 'FLUSH']);
  });

  it('ends with the error frames after a throw, keeps what came before and cancels the source', async () => {
    const { stream: body, state } = source(['a', 'b,!', 'c']);
    const aborts: unknown[] = [];
    const { stream } = await openStaged(body, stageStream(splitter()));
    const out = stream.pipe({ ...upper, abort: (reason) => aborts.push(reason) }).toReadable((err) => [`ERR ${(err as Error).message}`], join);
    expect(await collect(out)).toEqual(['A', 'B|ERR boom']);
    expect(aborts).toEqual([new Error('boom')]);
    expect(state.cancelled).toEqual(new Error('boom'));
  });

  it('rejects when the first read fails', async () => {
    await expect(openStaged(fromArray(['!']), stageStream(splitter()))).rejects.toThrow('boom');
  });

  it('stops reading once a stage stops, still flushing the stages after it', async () => {
    const { stream: body, state } = source(['a', 'stop', 'never']);
    const { stream } = await openStaged(body, stageStream(splitter()));
    expect(await collect(stream.pipe(upper).toReadable(() => ['ERR'], join))).toEqual(['A', 'STOPPED|FLUSH']);
    expect(state.cancelled).not.toBe(false);
  });

  it('passes a client cancel to the source and to every stage', async () => {
    const { stream: body, state } = source(['a', 'b', 'c']);
    const aborts: unknown[] = [];
    const { stream } = await openStaged(body, stageStream(splitter()));
    const reader = stream.pipe({ ...upper, abort: (reason) => aborts.push(reason) }).toReadable(() => ['ERR'], join).getReader();
    expect(await reader.read()).toEqual({ done: false, value: 'A' });
    await reader.cancel('gone');
    expect(aborts).toEqual(['gone']);
    expect(state.cancelled).toBe('gone');
  });

  describe('readBuffered', () => {
    it('takes an answer that came whole through every stage at once, as one chunk, with no read', async () => {
      const { reader, state } = bufferedSource(['a,b', 'c', 'd'], true);
      const { first, stream } = await openStaged(reader, stageStream(splitter()));
      expect(first).toBe('a');
      const reads = state.reads;
      const out = stream.pipe(upper).toReader(() => ['ERR'], join);
      expect(out.readBuffered!()).toEqual({ chunks: ['A|B|C|D|END|FLUSH'], done: true });
      expect(state.reads).toBe(reads);
      expect(await out.read()).toEqual({ done: true, value: undefined });
    });

    it('takes what is here of a stream still arriving; reads go on from there', async () => {
      const { reader, more } = bufferedSource(['a', 'b'], false);
      const { stream } = await openStaged(reader, stageStream(splitter()));
      const out = stream.pipe(upper).toReader(() => ['ERR'], join);
      expect(out.readBuffered!()).toEqual({ chunks: ['A|B'], done: false });
      expect(out.readBuffered!()).toEqual({ chunks: [], done: false });
      const next = out.read();
      // While a read waits, nothing is taken around it.
      expect(out.readBuffered!()).toBeUndefined();
      more('c');
      expect(await next).toEqual({ done: false, value: 'C' });
      more(undefined);
      expect(await out.read()).toEqual({ done: false, value: 'END|FLUSH' });
      expect(await out.read()).toEqual({ done: true, value: undefined });
    });

    it('ends with the error frames when a stage throws, and cancels the source', async () => {
      const { reader, state } = bufferedSource(['a', 'b,!', 'c'], true);
      const { stream } = await openStaged(reader, stageStream(splitter()));
      const out = stream.pipe(upper).toReader((err) => [`ERR ${(err as Error).message}`], join);
      expect(out.readBuffered!()).toEqual({ chunks: ['A|B|ERR boom'], done: true });
      expect(state.cancelled).toEqual(new Error('boom'));
    });

    it('stops at a stage that stops, leaving the chunks after it', async () => {
      const { reader, state } = bufferedSource(['a', 'stop', 'never'], false);
      const { stream } = await openStaged(reader, stageStream(splitter()));
      expect(stream.pipe(upper).toReader(() => ['ERR'], join).readBuffered!()).toEqual({ chunks: ['A|STOPPED|FLUSH'], done: true });
      expect(state.cancelled).not.toBe(false);
    });

    it('ends an answer the peek already drained, without asking the source', async () => {
      const { reader, state } = bufferedSource(['a'], true);
      const { stream } = await openStaged(reader, stageStream<string, string>({ push: (item, emit) => emit(item), end: () => {}, stopped: true }));
      const out = stream.toReader(() => ['ERR'], join);
      expect(out.readBuffered!()).toEqual({ chunks: ['a'], done: true });
      expect(state.cancelled).not.toBe(false);
    });

    it('cannot tell for a source without readBuffered: reads it is', async () => {
      const { stream } = await openStaged(fromArray(['a', 'b']), stageStream(splitter()));
      const out = stream.pipe(upper).toReader(() => ['ERR'], join);
      expect(out.readBuffered!()).toBeUndefined();
      expect(await out.read()).toEqual({ done: false, value: 'A' });
    });
  });
});
