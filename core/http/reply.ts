import { joinChunks } from './join-bytes.ts';

/**
 * A body read one chunk at a time: what `ReadableStream.getReader()` returns, and what an adapter
 * can offer without building a web stream at all (the adapters' upstream clients hand their bodies over as such readers).
 */
export interface ChunkReader<T = Uint8Array> {
  read(): Promise<ReadableStreamReadResult<T>>;
  cancel(reason?: unknown): Promise<void>;
  /**
   * Optional: takes every chunk already here without a read (no promise, no turn of the event
   * loop), and says whether the body ended with them. Undefined: this reader cannot tell, so
   * `read` it is. A failure is never reported here: the next `read` rejects with it.
   */
  readBuffered?(): BufferedChunks<T> | undefined;
}

/** What `ChunkReader.readBuffered` took: possibly no chunks; `done` once the body has ended. */
export interface BufferedChunks<T = Uint8Array> {
  chunks: T[];
  done: boolean;
}

/** Lower-case header names → values. A plain object: cheaper to build and copy than `Headers`. */
export type ReplyHeaders = Record<string, string>;

export type ReplyBody = string | Uint8Array | ChunkReader | ReadableStream<Uint8Array> | null;

/**
 * An answer as core builds it, before it is a web Response. `gateway.fetch` turns it into one;
 * an adapter that can write to its socket directly takes it from `gateway.reply` instead and
 * skips the Response, its Headers and its body stream (on Node each costs more than the work
 * of a passthrough call).
 */
export class Reply {
  constructor(
    readonly status: number,
    readonly headers: ReplyHeaders,
    readonly body: ReplyBody,
  ) {}

  /**
   * A body that must reach the client chunk by chunk as it arrives (SSE, Gemini's JSON-array
   * stream). Anything else is whole already or can be sent in one write.
   */
  get streaming(): boolean {
    return this.headers['x-accel-buffering'] === 'no' || (this.headers['content-type']?.startsWith('text/event-stream') ?? false);
  }
}

/** The reader of a streamed body, whichever form it has. */
export function readerOfBody(body: ChunkReader | ReadableStream<Uint8Array>): ChunkReader {
  return body instanceof ReadableStream ? body.getReader() : body;
}

/**
 * A reader as a web stream (pull-based: one read per pull, cancel passed back); `first`, chunks
 * already taken from it, come before what it reads.
 */
export function streamOfReader<T>(reader: ChunkReader<T>, first?: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>(
    {
      start(controller) {
        if (first) for (const chunk of first) controller.enqueue(chunk);
      },
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}

/**
 * core's answer as a web Response (`gateway.fetch`: the Deno adapter, an embedding app). A body
 * read chunk by chunk that has already ended (a short answer that came whole with the upstream's
 * headers, as a rule) is one body with its length, as the Node and Bun adapters send it, without
 * a stream and a pull per chunk; what is already here of a longer one leads its stream.
 */
export function replyToResponse(reply: Reply | Response): Response {
  if (reply instanceof Response) return reply;
  const { body } = reply;
  const init = { status: reply.status, headers: reply.headers };
  if (body === null || typeof body === 'string' || body instanceof Uint8Array || body instanceof ReadableStream) return new Response(body as BodyInit | null, init);
  const ahead = body.readBuffered?.();
  if (ahead?.done) return new Response(joinChunks(ahead.chunks) as BodyInit, init);
  return new Response(streamOfReader(body, ahead?.chunks), init);
}
