import { type BufferedChunks, type ChunkReader, streamOfReader } from './reply.ts';
import { identityStage, pipeStages, type Stage, stageOf } from './stage.ts';

/**
 * An upstream body read through fused stages: every stage appended with `pipe` runs
 * synchronously inside one pull, and each upstream read becomes at most one output chunk (see
 * `toReadable`), so an event pays no promise hop per stage.
 */
export interface StagedStream<T> {
  pipe<U>(stage: Stage<T, U>): StagedStream<U>;
  /** Cancels the upstream body (after a peek that decided against streaming). */
  cancel(reason?: unknown): Promise<void>;
  /**
   * The output as a reader. A throw anywhere (the upstream read, any stage) ends it with
   * `toFrames`' items instead of a cut connection; `encode` turns the items of one upstream read
   * into one output chunk (none for `undefined`), and is told which call is the last (`end`, maybe
   * with no items) so a format can close itself. Cancel travels back to the upstream body and to
   * every stage's `abort`.
   */
  toReader<U>(toFrames: (err: unknown) => T[], encode: Encode<T, U>): ChunkReader<U>;
  /** The same output as a web stream. */
  toReadable<U>(toFrames: (err: unknown) => T[], encode: Encode<T, U>): ReadableStream<U>;
}

export type Encode<T, U> = (items: T[], end: boolean) => U | undefined;

/**
 * Reads `body` through `transform` until its first item, so a failure that arrives first can
 * still become a proper HTTP status. A `stageStream` transform is fused (its stage runs in the
 * pull); any other TransformStream (Bedrock's event-stream framing) is piped as it is.
 */
export async function openStaged<S, M>(body: ChunkReader<S> | ReadableStream<S>, transform: TransformStream<S, M>): Promise<{ first: M | undefined; stream: StagedStream<M> }> {
  const fused = stageOf(transform);
  const source = body instanceof ReadableStream ? body : undefined;
  const reader: ChunkReader<S> = fused
    ? (source?.getReader() ?? (body as ChunkReader<S>))
    : (((source ?? streamOfReader(body as ChunkReader<S>)).pipeThrough(transform).getReader()) as unknown as ChunkReader<S>);
  const front = (fused ?? identityStage()) as Stage<S, M>;
  const head: M[] = [];
  const keep = (item: M) => head.push(item);
  let drained = false;
  try {
    while (head.length === 0 && !drained) {
      const result = await reader.read();
      if (result.done) {
        drained = true;
        front.end(keep);
      } else {
        front.push(result.value, keep);
        if (front.stopped) {
          drained = true;
          front.end(keep);
          void reader.cancel().catch(() => {});
        }
      }
    }
  } catch (err) {
    void reader.cancel(err).catch(() => {});
    throw err;
  }
  return { first: head[0], stream: staged({ reader, front, head, drained }, identityStage<M>()) };
}

interface Source<S, M> {
  reader: ChunkReader<S>;
  front: Stage<S, M>;
  /** Items read during the peek, not yet through the appended stages. */
  head: M[];
  /** The body ended (or the front stopped) during the peek. */
  drained: boolean;
}

const DONE = { done: true, value: undefined } as const;

function staged<S, M, T>(source: Source<S, M>, back: Stage<M, T>): StagedStream<T> {
  const { reader, front } = source;
  return {
    pipe: (stage) => staged(source, pipeStages(back, stage)),
    cancel: (reason) => reader.cancel(reason),
    toReadable: (toFrames, encode) => streamOfReader(toReader(toFrames, encode)),
    toReader,
  };

  function toReader<U>(toFrames: (err: unknown) => T[], encode: Encode<T, U>): ChunkReader<U> {
    let started = false;
    let closed = false;
    // After the client cancels, the read pending at that moment settles too; the output it
    // would feed is gone by then and must not be touched again.
    let cancelled = false;
    let reading = false;
    // The items of the output chunk being made; reads never overlap, so one list and one set of
    // callbacks serve the whole stream.
    let out: T[] = [];
    const emit = (item: T) => void out.push(item);
    const feed = (item: M) => {
      if (!back.stopped) back.push(item, emit);
    };
    const finish = () => {
      front.end(feed);
      back.end(emit);
      closed = true;
    };
    const start = () => {
      started = true;
      for (const item of source.head) feed(item);
      source.head = [];
      if (source.drained) {
        back.end(emit);
        closed = true;
      }
    };
    const take = (chunk: S) => {
      front.push(chunk, feed);
      if (front.stopped || back.stopped) {
        finish();
        void reader.cancel().catch(() => {});
      }
    };
    const fail = (err: unknown) => {
      closed = true;
      front.abort?.(err);
      back.abort?.(err);
      void reader.cancel(err).catch(() => {});
      out.push(...toFrames(err));
    };
    const flush = (): U | undefined => {
      const items = out;
      out = [];
      return items.length > 0 || closed ? encode(items, closed) : undefined;
    };
    return {
      async read(): Promise<ReadableStreamReadResult<U>> {
        if (closed || cancelled) return DONE;
        reading = true;
        try {
          if (!started) start();
          while (!closed && out.length === 0) {
            const result = await reader.read();
            if (cancelled) return DONE;
            if (result.done) finish();
            else take(result.value);
          }
        } catch (err) {
          if (cancelled) return DONE;
          fail(err);
        } finally {
          reading = false;
        }
        const value = flush();
        return value === undefined ? DONE : { done: false, value };
      },
      /**
       * What the upstream reader already holds, through the stages at once and encoded as one
       * chunk: a translated answer that came whole with the upstream's headers goes out as one
       * body, with no read, promise or turn per upstream chunk.
       */
      readBuffered(): BufferedChunks<U> | undefined {
        if (reading || closed || cancelled) return undefined;
        const opening = !started && source.drained;
        const taken = opening ? undefined : reader.readBuffered?.();
        if (!taken && !opening) return undefined;
        try {
          if (!started) start();
          if (taken) {
            for (const chunk of taken.chunks) if (!closed) take(chunk);
            if (taken.done && !closed) finish();
          }
        } catch (err) {
          fail(err);
        }
        const value = flush();
        return { chunks: value === undefined ? [] : [value], done: closed };
      },
      cancel(reason) {
        if (cancelled) return Promise.resolve();
        cancelled = true;
        closed = true;
        front.abort?.(reason);
        back.abort?.(reason);
        return reader.cancel(reason);
      },
    };
  }
}
