/**
 * Wraps a stream so that a failure anywhere upstream of it ends the client's stream with the
 * family's own error frame instead of a cut connection. It cannot be a TransformStream: once an
 * earlier stage errors, later transforms can no longer enqueue. Cancel travels back to `source`,
 * which aborts the upstream call.
 */
export function withErrorFrame<T>(source: ReadableStream<T>, toFrames: (err: unknown) => T[]): ReadableStream<T> {
  const reader = source.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        for (const frame of toFrames(err)) controller.enqueue(frame);
        controller.close();
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}
