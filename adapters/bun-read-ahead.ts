import type { ChunkReader } from '../core/index.ts';

export type ReadResult = ReadableStreamReadResult<Uint8Array>;

/** What a stream already held when it was handed over, and the read still pending if it goes on. */
export interface ReadAhead {
  chunks: Uint8Array[];
  /** The chunks' bytes in all. */
  size: number;
  done: boolean;
  next?: Promise<ReadResult>;
}

/** At most this much is read ahead before the Response is handed to Bun. */
const READ_AHEAD_BYTES = 256 * 1024;

/**
 * Bun calls a direct stream's pull as soon as the Response is returned, and sends what the pull
 * wrote before its first await: the headers alone when the first chunk is still a read away.
 * So the chunks that are already here (usually all of a relayed answer) are read first, until a
 * read has to wait: setImmediate runs after this turn's promise jobs, so it fires only then.
 * `first`: chunks already taken from the reader, which come before what it reads.
 */
export function readAhead(reader: ChunkReader, first: readonly Uint8Array[] = []): Promise<ReadAhead> {
  const chunks: Uint8Array[] = [...first];
  let size = 0;
  for (const chunk of first) size += chunk.byteLength;
  return new Promise((resolve) => {
    let waiting = true;
    let pending: Promise<ReadResult>;
    const finish = (done: boolean, next?: Promise<ReadResult>) => {
      clearImmediate(timer);
      waiting = false;
      resolve({ chunks, size, done, next });
    };
    // A read still pending here has to wait for I/O: it is the pull's to await.
    const timer = setImmediate(() => finish(false, pending));
    const readNext = () => {
      pending = reader.read();
      pending.then(
        (result) => {
          if (!waiting) return;
          if (result.done) return finish(true);
          chunks.push(result.value);
          size += result.value.byteLength;
          if (size < READ_AHEAD_BYTES) return readNext();
          // A long stream already buffered (a big answer from a fast upstream) must not hold the
          // event loop or the headers until all of it is read: the rest follows in the pull.
          finish(false);
        },
        // The failure surfaces from `next` in the pull, after the headers (as before).
        () => waiting && finish(false, pending),
      );
    };
    readNext();
  });
}
