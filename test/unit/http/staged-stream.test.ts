import { describe, expect, it } from 'vitest';
import { type Stage, stageStream } from '../../../core/http/stage.ts';
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
});
