/**
 * Wraps a stream so that a failure anywhere upstream of it ends the client's stream with the
 * family's own error frame instead of a cut connection. It cannot be a TransformStream: once an
 * earlier stage errors, later transforms can no longer enqueue. Cancel travels back to `source`,
 * which aborts the upstream call. `encode` serialises each item on the way out (e.g. `encodeSse`),
 * which saves a separate stream stage, and its promise hops, per chunk.
 */
export function withErrorFrame<T, U = T>(source: ReadableStream<T>, toFrames: (err: unknown) => T[], encode: (item: T) => U = (item) => item as unknown as U): ReadableStream<U> {
  const reader = source.getReader();
  // After the client cancels, the read pending at that moment settles too; the stream it would
  // feed is closed by then and must not be touched again.
  let cancelled = false;
  return new ReadableStream<U>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (err) {
          if (cancelled) return;
          for (const frame of toFrames(err)) controller.enqueue(encode(frame));
          controller.close();
          return;
        }
        if (cancelled) return;
        if (result.done) controller.close();
        else controller.enqueue(encode(result.value));
      },
      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
