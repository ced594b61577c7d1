import { type ChunkReader, streamOfReader } from './reply.ts';
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
      const DONE = { done: true, value: undefined } as const;
      return {
        async read(): Promise<ReadableStreamReadResult<U>> {
          if (closed || cancelled) return DONE;
          const out: T[] = [];
          const emit = (item: T) => out.push(item);
          const feed = (item: M) => {
            if (!back.stopped) back.push(item, emit);
          };
          const finish = () => {
            front.end(feed);
            back.end(emit);
            closed = true;
          };
          try {
            if (!started) {
              started = true;
              for (const item of source.head) feed(item);
              source.head = [];
              if (source.drained) {
                back.end(emit);
                closed = true;
              }
            }
            while (!closed && out.length === 0) {
              const result = await reader.read();
              if (cancelled) return DONE;
              if (result.done) {
                finish();
              } else {
                front.push(result.value, feed);
                if (front.stopped || back.stopped) {
                  finish();
                  void reader.cancel().catch(() => {});
                }
              }
            }
          } catch (err) {
            if (cancelled) return DONE;
            closed = true;
            front.abort?.(err);
            back.abort?.(err);
            void reader.cancel(err).catch(() => {});
            out.push(...toFrames(err));
          }
          const value = out.length > 0 || closed ? encode(out, closed) : undefined;
          return value === undefined ? DONE : { done: false, value };
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
