/**
 * Waits for a stream's first chunk before a response is committed, so a failure that arrives
 * first (a throttling frame, an error chunk) can still become a proper HTTP status instead of an
 * in-stream error frame. Returns the first chunk and a stream that replays it, then the rest;
 * cancelling the returned stream cancels the source. A rejected first read rejects here.
 */
export async function peekStream<T>(source: ReadableStream<T>): Promise<{ first: T | undefined; stream: ReadableStream<T> }> {
  const reader = source.getReader();
  const head = await reader.read();
  let pending: T | undefined = head.done ? undefined : head.value;
  let delivered = head.done;
  const stream = new ReadableStream<T>(
    {
      async pull(controller) {
        if (!delivered) {
          delivered = true;
          controller.enqueue(pending!);
          pending = undefined;
          return;
        }
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  return { first: head.done ? undefined : head.value, stream };
}
