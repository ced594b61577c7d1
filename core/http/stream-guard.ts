/**
 * Wraps a stream so that a failure anywhere upstream of it ends the client's stream with the
 * family's own error frame instead of a cut connection. It cannot be a TransformStream: once an
 * earlier stage errors, later transforms can no longer enqueue. Cancel travels back to `source`,
 * which aborts the upstream call.
 */
export function withErrorFrame<T>(source: ReadableStream<T>, toFrames: (err: unknown) => T[]): ReadableStream<T> {
  const reader = source.getReader();
  // After the client cancels, the read pending at that moment settles too; the stream it would
  // feed is closed by then and must not be touched again.
  let cancelled = false;
  return new ReadableStream<T>(
    {
      async pull(controller) {
        let result: Awaited<ReturnType<typeof reader.read>>;
        try {
          result = await reader.read();
        } catch (err) {
          if (cancelled) return;
          for (const frame of toFrames(err)) controller.enqueue(frame);
          controller.close();
          return;
        }
        if (cancelled) return;
        if (result.done) controller.close();
        else controller.enqueue(result.value);
      },
      cancel(reason) {
        cancelled = true;
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
