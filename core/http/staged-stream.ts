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
   * The output stream. A throw anywhere (the upstream read, any stage) ends it with `toFrames`'
   * items instead of a cut connection; `encode` turns the items of one upstream read into the
   * chunks to enqueue. Cancel travels back to the upstream body and to every stage's `abort`.
   */
  toReadable<U>(toFrames: (err: unknown) => T[], encode: (items: T[]) => U[]): ReadableStream<U>;
}

/**
 * Reads `body` through `transform` until its first item, so a failure that arrives first can
 * still become a proper HTTP status. A `stageStream` transform is fused (its stage runs in the
 * pull); any other TransformStream (Bedrock's event-stream framing) is piped as it is.
 */
export async function openStaged<S, M>(body: ReadableStream<S>, transform: TransformStream<S, M>): Promise<{ first: M | undefined; stream: StagedStream<M> }> {
  const fused = stageOf(transform);
  const reader: ReadableStreamDefaultReader<S> = fused ? body.getReader() : (body.pipeThrough(transform).getReader() as unknown as ReadableStreamDefaultReader<S>);
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
  reader: ReadableStreamDefaultReader<S>;
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
    toReadable(toFrames, encode) {
      let started = false;
      let closed = false;
      // After the client cancels, the read pending at that moment settles too; the stream it
      // would feed is closed by then and must not be touched again.
      let cancelled = false;
      return new ReadableStream(
        {
          async pull(controller) {
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
                if (cancelled) return;
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
              if (cancelled) return;
              closed = true;
              front.abort?.(err);
              back.abort?.(err);
              void reader.cancel(err).catch(() => {});
              out.push(...toFrames(err));
            }
            if (out.length > 0) for (const chunk of encode(out)) controller.enqueue(chunk);
            if (closed) controller.close();
          },
          cancel(reason) {
            cancelled = true;
            closed = true;
            front.abort?.(reason);
            back.abort?.(reason);
            return reader.cancel(reason);
          },
        },
        { highWaterMark: 0 },
      );
    },
  };
}
