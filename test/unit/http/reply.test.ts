import { describe, expect, it } from 'vitest';
import { Reply, readerOfBody, replyToResponse, streamOfReader, type ChunkReader } from '../../../core/http/reply.ts';
import { collect, fromArray } from '../../helpers/streams.ts';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('Reply', () => {
  it('is streaming only when marked (SSE content type or x-accel-buffering: no)', () => {
    expect(new Reply(200, { 'content-type': 'text/event-stream; charset=utf-8' }, null).streaming).toBe(true);
    expect(new Reply(200, { 'content-type': 'application/json', 'x-accel-buffering': 'no' }, null).streaming).toBe(true);
    expect(new Reply(200, { 'content-type': 'application/json' }, '{}').streaming).toBe(false);
  });

  it('becomes a web Response with the same status, headers and body, whatever the body form', async () => {
    const headers = { 'content-type': 'application/json', 'x-request-id': 'req_1' };
    for (const body of ['{"a":1}', bytes('{"a":1}'), fromArray([bytes('{"a"'), bytes(':1}')]), fromArray([bytes('{"a":1}')]).getReader()]) {
      const response = replyToResponse(new Reply(201, { ...headers }, body));
      expect(response.status).toBe(201);
      expect(response.headers.get('x-request-id')).toBe('req_1');
      expect(await response.json()).toEqual({ a: 1 });
    }
    const plain = new Response('x');
    expect(replyToResponse(plain)).toBe(plain);
    expect(replyToResponse(new Reply(204, {}, null)).body).toBeNull();
  });

  /** A reader that offers `buffered` without a read (and whether the body ended with it), then reads `rest`, counting its reads. */
  function bufferedReader(buffered: Uint8Array[], done: boolean, rest: Uint8Array[] = []): ChunkReader & { reads: number } {
    const queue = [...rest];
    return {
      reads: 0,
      readBuffered: () => ({ chunks: buffered.splice(0), done }),
      read() {
        this.reads++;
        const value = queue.shift();
        return Promise.resolve(value ? { done: false as const, value } : { done: true as const, value: undefined });
      },
      cancel: async () => {},
    };
  }

  it('sends a streamed body that has ended already as one body, without reading it', async () => {
    const reader = bufferedReader([bytes('event: a\n\n'), bytes('event: b\n\n')], true);
    const response = replyToResponse(new Reply(200, { 'content-type': 'text/event-stream; charset=utf-8' }, reader));
    expect(await response.text()).toBe('event: a\n\nevent: b\n\n');
    expect(reader.reads).toBe(0);
  });

  it('puts what a streamed body already had before what it reads next', async () => {
    const reader = bufferedReader([bytes('event: a\n\n')], false, [bytes('event: b\n\n'), bytes('event: c\n\n')]);
    const response = replyToResponse(new Reply(200, { 'content-type': 'text/event-stream; charset=utf-8' }, reader));
    expect(await response.text()).toBe('event: a\n\nevent: b\n\nevent: c\n\n');
    expect(reader.reads).toBe(3);
  });

  it('turns a reader into a pull stream that passes cancel back', async () => {
    let cancelled: unknown;
    const source = new ReadableStream<Uint8Array>({
      pull: (c) => c.enqueue(bytes('x')),
      cancel: (reason) => void (cancelled = reason),
    });
    const reader = streamOfReader(readerOfBody(source)).getReader();
    expect((await reader.read()).value).toEqual(bytes('x'));
    await reader.cancel('gone');
    expect(cancelled).toBe('gone');
    expect(await collect(streamOfReader(fromArray([1, 2, 3]).getReader()))).toEqual([1, 2, 3]);
  });
});
