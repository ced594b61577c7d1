import type { UsageRecord, UsageSink, UsageStore } from './types.ts';

export interface UsageWriterOptions {
  /** Write as soon as this many records wait. */
  maxRecords?: number;
  /** Write at most this long after the first waiting record. */
  flushMs?: number;
  /** While storage is down records wait in memory, up to this many (the oldest are dropped beyond). */
  maxPending?: number;
  onError?: (err: unknown) => void;
}

/**
 * Batches usage records off the request path: `add` only pushes to an array; one write at a
 * time goes to the store, every `maxRecords` records or `flushMs` milliseconds. A failed write
 * keeps its records for the next attempt. `flush()` drains everything (graceful shutdown).
 */
export function createUsageWriter(store: UsageStore, options: UsageWriterOptions = {}): UsageSink & { pending(): number } {
  const maxRecords = options.maxRecords ?? 100;
  const flushMs = options.flushMs ?? 1000;
  const maxPending = options.maxPending ?? 100_000;
  const onError = options.onError ?? ((err) => console.error(`switchyard: usage write failed: ${String(err)}`));
  let buffer: UsageRecord[] = [];
  let writing: Promise<void> | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let dropped = 0;

  function writeNext(): Promise<void> {
    const batch = buffer.splice(0, maxRecords);
    writing = store.appendBatch(batch).then(
      () => {
        writing = undefined;
      },
      (err: unknown) => {
        writing = undefined;
        buffer = batch.concat(buffer);
        if (buffer.length > maxPending) {
          dropped += buffer.length - maxPending;
          buffer.splice(0, buffer.length - maxPending);
          onError(new Error(`usage storage unavailable; ${dropped} record(s) dropped so far`));
        }
        onError(err);
        throw err;
      },
    );
    return writing;
  }

  function kick(): void {
    if (writing || buffer.length === 0) return;
    writeNext().then(
      () => (buffer.length >= maxRecords ? kick() : buffer.length ? arm() : undefined),
      () => arm(),
    );
  }

  function arm(): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      kick();
    }, flushMs);
    // Node and Bun would otherwise keep the process alive for a pending flush.
    (timer as { unref?: () => void }).unref?.();
  }

  return {
    add(record) {
      buffer.push(record);
      if (buffer.length >= maxRecords) kick();
      else arm();
    },
    async flush() {
      if (timer) clearTimeout(timer);
      timer = undefined;
      for (;;) {
        if (writing) {
          await writing.catch(() => {});
          continue;
        }
        if (buffer.length === 0) return;
        await writeNext();
      }
    },
    pending: () => buffer.length,
  };
}
