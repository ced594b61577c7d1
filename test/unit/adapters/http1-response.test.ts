import { describe, expect, it } from 'vitest';
import { HeaderFields } from '../../../adapters/http1-headers.ts';
import { Http1ParseError, Http1ResponseReader, MAX_HEAD_BYTES } from '../../../adapters/http1-response.ts';
import type { HeadersLike } from '../../../core/index.ts';

// The upstream client's response reader: framing, keep-alive and refusals, with every answer also
// fed in pieces split at every offset, since a socket may cut the bytes anywhere. Every piece is
// read from one Buffer that is overwritten after each read, as Node's client reads every socket
// into one buffer: the reader must keep copies of what it holds across reads, never views.

interface Read {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  ended: boolean;
  keepAlive: boolean;
  keepAliveHint?: string;
}

const bytes = (text: string) => Buffer.from(text, 'latin1');

function readAll(pieces: Uint8Array[], options: { noBody?: boolean; close?: boolean } = {}): Read {
  const out: Read = { body: '', ended: false, keepAlive: false };
  const reader = new Http1ResponseReader(
    {
      onHead(status: number, headers: HeadersLike) {
        expect(out.status).toBeUndefined();
        out.status = status;
        const record: Record<string, string> = {};
        headers.forEach((value, name) => (record[name] = value));
        out.headers = record;
      },
      onBody(chunk: Uint8Array) {
        expect(out.ended).toBe(false);
        out.body += Buffer.from(chunk).toString('latin1');
      },
      onEnd() {
        expect(out.ended).toBe(false);
        out.ended = true;
      },
    },
    options.noBody,
  );
  const shared = Buffer.alloc(Math.max(0, ...pieces.map((piece) => piece.byteLength)));
  for (const piece of pieces) {
    shared.set(piece);
    reader.read(shared.subarray(0, piece.byteLength));
    shared.fill('~');
  }
  if (options.close) reader.close();
  out.keepAlive = reader.keepAlive;
  if (reader.keepAliveHint !== undefined) out.keepAliveHint = reader.keepAliveHint;
  return out;
}

/** The answer read whole, then in two pieces cut at every offset: all must read the same. */
function readEverySplit(text: string, options: { noBody?: boolean; close?: boolean } = {}): Read {
  const whole = readAll([bytes(text)], options);
  for (let at = 1; at < text.length; at++) {
    expect(readAll([bytes(text.slice(0, at)), bytes(text.slice(at))], options), `split at ${at}`).toEqual(whole);
  }
  // And one byte at a time.
  expect(readAll([...bytes(text)].map((byte) => Uint8Array.of(byte)), options)).toEqual(whole);
  return whole;
}

function refusal(text: string, options: { close?: boolean } = {}): string {
  try {
    readAll([bytes(text)], options);
  } catch (err) {
    expect(err).toBeInstanceOf(Http1ParseError);
    return (err as Error).message;
  }
  throw new Error('the reader took it');
}

describe('Http1ResponseReader', () => {
  it('reads a body framed by content-length, headers lower-cased and trimmed, and keeps the connection', () => {
    const read = readEverySplit('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 11\r\nX-Request-Id:   req_1 \t\r\n\r\n{"ok":true}');
    expect(read).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json', 'content-length': '11', 'x-request-id': 'req_1' },
      body: '{"ok":true}',
      ended: true,
      keepAlive: true,
    });
  });

  it('reads a chunked body (extensions ignored, trailers skipped) as the chunks arrive', () => {
    const text = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n' + 'a;ext=1\r\nevent: a\n\n\r\n' + 'b\r\nevent: bb\n\n\r\n' + '0\r\nx-trailer: 1\r\n\r\n';
    expect(readEverySplit(text)).toMatchObject({ status: 200, body: 'event: a\n\nevent: bb\n\n', ended: true, keepAlive: true });
  });

  it('gives each chunk as soon as its bytes are there, before the answer ends', () => {
    const seen: string[] = [];
    const reader = new Http1ResponseReader({ onHead() {}, onBody: (chunk) => seen.push(Buffer.from(chunk).toString()), onEnd: () => seen.push('END') });
    reader.read(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel'));
    expect(seen).toEqual(['hel']);
    reader.read(bytes('lo\r\n'));
    expect(seen).toEqual(['hel', 'lo']);
    reader.read(bytes('0\r\n\r\n'));
    expect(seen).toEqual(['hel', 'lo', 'END']);
    expect(reader.done).toBe(true);
  });

  it('reads a body without length or chunking until the connection closes, and does not keep it', () => {
    const read = readEverySplit('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nall of it', { close: true });
    expect(read).toMatchObject({ status: 200, body: 'all of it', ended: true, keepAlive: false });
    // A transfer coding other than chunked last is read the same way.
    expect(readAll([bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nxyz')], { close: true })).toMatchObject({ body: 'xyz', keepAlive: false });
  });

  it('skips informational answers and reads the final one', () => {
    const read = readEverySplit('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok');
    expect(read).toMatchObject({ status: 201, headers: { 'content-length': '2' }, body: 'ok', ended: true });
  });

  it('ends answers that have no body whatever their headers say: 204, 304, and any answer to HEAD', () => {
    expect(readAll([bytes('HTTP/1.1 204 No Content\r\ncontent-length: 5\r\n\r\n')])).toMatchObject({ status: 204, body: '', ended: true, keepAlive: true });
    expect(readAll([bytes('HTTP/1.1 304 Not Modified\r\n\r\n')])).toMatchObject({ status: 304, ended: true });
    expect(readAll([bytes('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n')], { noBody: true })).toMatchObject({ status: 200, body: '', ended: true });
    expect(readAll([bytes('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n')])).toMatchObject({ body: '', ended: true, keepAlive: true });
  });

  it('keeps the connection by the rules of each version, and reads the keep-alive hint', () => {
    expect(readAll([bytes('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n')]).keepAlive).toBe(false);
    expect(readAll([bytes('HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\ncontent-length: 0\r\n\r\n')]).keepAlive).toBe(false);
    // One token in capitals, as some servers send it.
    expect(readAll([bytes('HTTP/1.1 200 OK\r\nConnection: CLOSE\r\ncontent-length: 0\r\n\r\n')]).keepAlive).toBe(false);
    expect(readAll([bytes('HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n')])).toMatchObject({ body: 'ok', ended: true, keepAlive: true });
    expect(readAll([bytes('HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n')]).keepAlive).toBe(false);
    expect(readAll([bytes('HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 0\r\n\r\n')]).keepAlive).toBe(true);
    expect(readAll([bytes('HTTP/1.1 200 OK\r\nKeep-Alive: timeout=5, max=100\r\ncontent-length: 0\r\n\r\n')])).toMatchObject({ keepAlive: true, keepAliveHint: 'timeout=5, max=100' });
    // Both framings: chunked wins and the connection is not used again (RFC 9112 6.3).
    const both = readAll([bytes('HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n')]);
    expect(both).toMatchObject({ body: 'ok', ended: true, keepAlive: false });
  });

  it('takes repeated content-length values only when they agree', () => {
    expect(readAll([bytes('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nContent-Length: 2\r\n\r\nok')])).toMatchObject({ body: 'ok', ended: true });
    expect(readAll([bytes('HTTP/1.1 200 OK\r\ncontent-length: 2, 2\r\n\r\nok')])).toMatchObject({ body: 'ok', ended: true });
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok')).toBe('Malformed content-length');
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\n')).toBe('Malformed content-length');
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: 1e3\r\n\r\n')).toBe('Malformed content-length');
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999\r\n\r\n')).toBe('Malformed content-length');
  });

  it('refuses heads that could be read two ways', () => {
    expect(refusal('HTTP/2 200\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 20 OK\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 200 OK\r\nno colon here\r\n\r\n')).toBe('Malformed response head');
    // A space before the colon is how a name smuggles past a proxy: refused.
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length : 2\r\n\r\nok')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 200 OK\r\n folded: value\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 200 OK\r\nx-a: 1\nx-b: 2\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 200 OK\r\nx-a: 1\rx-b: 2\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 200 OK\r\nx-a: \0\r\n\r\n')).toBe('Malformed response head');
    expect(refusal('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n')).toBe('Unexpected protocol switch');
  });

  it('refuses a head past its limit, whether it comes at once or in pieces', () => {
    const huge = `HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(MAX_HEAD_BYTES)}\r\n\r\n`;
    expect(refusal(huge)).toBe('Response head is too large');
    const reader = new Http1ResponseReader({ onHead() {}, onBody() {}, onEnd() {} });
    expect(() => {
      for (let at = 0; at < huge.length; at += 1000) reader.read(bytes(huge.slice(at, at + 1000)));
    }).toThrow('Response head is too large');
  });

  it('refuses broken chunked framing', () => {
    const head = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n';
    expect(refusal(`${head}zz\r\n`)).toBe('Malformed chunk size');
    expect(refusal(`${head}2\r\nokX\r\n`)).toBe('Chunk data is not followed by CRLF');
    expect(refusal(`${head}2\nok\r\n`)).toBe('Line not ended by CRLF');
    expect(refusal(`${head}${'1'.repeat(13)}\r\n`)).toBe('Malformed chunk size');
    expect(refusal(`${head}${'0'.repeat(5000)}`)).toBe('Line too long');
  });

  it('refuses bytes past the end of an answer (nothing is pipelined)', () => {
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA')).toBe('Data after the end of the answer');
  });

  it('reports a connection that closed before the answer ended, or before any answer', () => {
    expect(refusal('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort', { close: true })).toBe('Connection closed before the answer ended');
    expect(refusal('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel', { close: true })).toBe('Connection closed before the answer ended');
    expect(refusal('HTTP/1.1 200 O', { close: true })).toBe('Connection closed before an answer');
    expect(refusal('', { close: true })).toBe('Connection closed before an answer');
  });

  it('gives body chunks as views of the bytes it was given, not copies', () => {
    const data = bytes('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello');
    let chunk: Uint8Array | undefined;
    new Http1ResponseReader({ onHead() {}, onBody: (c) => (chunk = c), onEnd() {} }).read(data);
    expect(chunk!.buffer).toBe(data.buffer);
  });
});

describe('HeaderFields', () => {
  const section = (...lines: string[]) => lines.map((line) => `\r\n${line}`).join('');
  const headers = new HeaderFields(section('Content-Type: application/json', 'Set-Cookie: a=1', 'x-empty:', 'set-cookie:  b=2 ', 'Retry-After: 30'));

  it('gets any header case-insensitively, repeated values joined as Headers.get joins them', () => {
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('RETRY-AFTER')).toBe('30');
    expect(headers.get('set-cookie')).toBe('a=1, b=2');
    expect(headers.get('x-empty')).toBe('');
    expect(headers.get('missing')).toBeNull();
    // A name that only starts like another is not it.
    expect(headers.get('content')).toBeNull();
  });

  it('gives each name once, lower-cased, to forEach', () => {
    const seen: Array<[string, string]> = [];
    headers.forEach((value, name) => seen.push([name, value]));
    expect(seen).toEqual([
      ['content-type', 'application/json'],
      ['set-cookie', 'a=1, b=2'],
      ['x-empty', ''],
      ['retry-after', '30'],
    ]);
  });

  it('reads no fields from an empty section, and values with tabs and inner spaces kept', () => {
    const none = new HeaderFields('');
    expect(none.get('content-type')).toBeNull();
    const seen: string[] = [];
    none.forEach((_value, name) => seen.push(name));
    expect(seen).toEqual([]);
    expect(new HeaderFields(section('X-A:\t one  two \t', 'X-B:x')).values).toEqual(['one  two', 'x']);
  });

  it('finds a name repeated under another spelling in a later head, after a head that had it once', () => {
    // The repeat mark belongs to the head being read: the first head must not leave one behind.
    expect(new HeaderFields(section('Warning: 1', 'X-Other: 2')).get('warning')).toBe('1');
    const later = new HeaderFields(section('WARNING: 3', 'x-other: 4', 'warning: 5'));
    expect(later.get('warning')).toBe('3, 5');
    const seen: Array<[string, string]> = [];
    later.forEach((value, name) => seen.push([name, value]));
    expect(seen).toEqual([
      ['warning', '3, 5'],
      ['x-other', '4'],
    ]);
  });

  it('keeps reading names correctly after its table of known names has been emptied', () => {
    // More distinct names than the table keeps (512): it is emptied between heads, and a head
    // read after that still finds its own repeated names.
    for (let i = 0; i < 6; i++) new HeaderFields(section(...Array.from({ length: 100 }, (_, k) => `X-Name-${i}-${k}: ${k}`)));
    const after = new HeaderFields(section('X-Name-0-1: a', 'x-name-0-1: b', 'Content-Length: 2'));
    expect(after.get('x-name-0-1')).toBe('a, b');
    expect(after.get('content-length')).toBe('2');
  });
});
