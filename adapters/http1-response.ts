/**
 * An HTTP/1.1 response read from the bytes of a socket as they come (RFC 9112): status line and
 * header section, then a body framed by `content-length`, by chunked transfer coding or by the
 * connection's close. Body chunks are views of the bytes given, not copies; what it keeps across
 * reads it copies. Used by the adapters' upstream client (http1-client.ts).
 */
import { Buffer } from 'node:buffer';

import type { HeadersLike } from '../core/index.ts';
import { joinBytes } from '../core/http/join-bytes.ts';
import { HeaderFields } from './http1-headers.ts';

export interface ResponseSink {
  /** The final answer's status and headers (1xx answers are skipped). */
  onHead(status: number, headers: HeadersLike): void;
  onBody(chunk: Uint8Array): void;
  onEnd(): void;
}

/** A response this reader refuses: the connection cannot be used again. */
export class Http1ParseError extends Error {
  override name = 'Http1ParseError';
}

/** Longest status line and header section accepted (undici's default is 16 KiB). */
export const MAX_HEAD_BYTES = 64 * 1024;

const enum State {
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkDataEnd,
  Trailers,
  UntilClose,
  Done,
}

const CR = 13;
const LF = 10;
/** Status line (version, code, optional reason), then each header line after its CRLF. */
const HEAD = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n\0]*)?((?:\r\n[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[^\r\n\0]*)*)$/;
const DIGITS = /^\d+$/;
/** A header value that is one token, without commas or whitespace around it. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A chunk size: hex digits, before any extensions (ignored, as RFC 9112 allows). */
const HEX = /^[0-9A-Fa-f]+$/;
/** Longest chunk-size or trailer line accepted. */
const MAX_CHUNK_LINE = 4096;

export class Http1ResponseReader {
  #sink: ResponseSink;
  #noBody: boolean;
  #state = State.Head;
  /** Bytes of a head or a chunk-size/trailer line split across reads. */
  #pending: Uint8Array | undefined;
  #remaining = 0;
  #keepAlive = true;
  #keepAliveHint: string | undefined;
  #headed = false;

  /** `noBody`: the request was a HEAD, so no answer has a body whatever its headers say. */
  constructor(sink: ResponseSink, noBody = false) {
    this.#sink = sink;
    this.#noBody = noBody;
  }

  /** Whether the connection may carry another request once this answer has ended. */
  get keepAlive(): boolean {
    return this.#keepAlive;
  }

  /** The answer's `keep-alive` header (`timeout=N`): how long the upstream keeps an unused connection. */
  get keepAliveHint(): string | undefined {
    return this.#keepAliveHint;
  }

  get done(): boolean {
    return this.#state === State.Done;
  }

  /** Reads the next bytes; throws Http1ParseError for what is not a response this reader takes. */
  read(data: Uint8Array): void {
    let at = 0;
    while (at < data.length) {
      switch (this.#state) {
        case State.Head: {
          at = this.#readHead(data, at);
          break;
        }
        case State.Length: {
          at = this.#readBody(data, at);
          if (this.#remaining === 0) this.#end();
          break;
        }
        case State.ChunkSize: {
          const line = this.#readLine(data, at);
          if (!line) return;
          at = line.next;
          this.#startChunk(line.text);
          break;
        }
        case State.ChunkData: {
          at = this.#readBody(data, at);
          if (this.#remaining === 0) this.#state = State.ChunkDataEnd;
          break;
        }
        case State.ChunkDataEnd: {
          const line = this.#readLine(data, at);
          if (!line) return;
          if (line.text !== '') throw new Http1ParseError('Chunk data is not followed by CRLF');
          at = line.next;
          this.#state = State.ChunkSize;
          break;
        }
        case State.Trailers: {
          const line = this.#readLine(data, at);
          if (!line) return;
          at = line.next;
          if (line.text === '') this.#end();
          break;
        }
        case State.UntilClose: {
          this.#sink.onBody(at === 0 ? data : data.subarray(at));
          return;
        }
        case State.Done:
          // Bytes past the answer's end: no pipelining here, so the connection is out of step.
          throw new Http1ParseError('Data after the end of the answer');
      }
    }
  }

  /**
   * The connection closed. A body that runs until the close ends here; any other answer was cut
   * short, which throws.
   */
  close(): void {
    if (this.#state === State.UntilClose) {
      this.#end();
      return;
    }
    if (this.#state !== State.Done) throw new Http1ParseError(this.#headed ? 'Connection closed before the answer ended' : 'Connection closed before an answer');
  }

  /** Up to `#remaining` body bytes from `at` to the sink; returns where they stop. */
  #readBody(data: Uint8Array, at: number): number {
    const take = Math.min(this.#remaining, data.length - at);
    this.#sink.onBody(data.subarray(at, at + take));
    this.#remaining -= take;
    return at + take;
  }

  #end(): void {
    this.#state = State.Done;
    this.#sink.onEnd();
  }

  /** Reads up to the end of the header section; returns where the body starts (or data's end). */
  #readHead(data: Uint8Array, at: number): number {
    const pending = this.#pending;
    const bytes = pending ? joinTwo(pending, data.subarray(at)) : data;
    const from = pending ? 0 : at;
    const end = findHeadEnd(bytes, pending ? Math.max(0, pending.length - 3) : from);
    if (end < 0) {
      if (bytes.length - from > MAX_HEAD_BYTES) throw new Http1ParseError('Response head is too large');
      this.#pending = copyBytes(bytes, from);
      return data.length;
    }
    if (end - from > MAX_HEAD_BYTES) throw new Http1ParseError('Response head is too large');
    this.#pending = undefined;
    this.#applyHead(readLatin1(bytes, from, end - 4));
    // Where the body starts, in `data`'s offsets.
    return pending ? at + (end - pending.length) : end;
  }

  #applyHead(head: string): void {
    // One expression checks the whole head: a status line, then header lines of a token, a colon
    // and a value without CR, LF or NUL.
    const status = HEAD.exec(head);
    if (!status) throw new Http1ParseError('Malformed response head');
    const code = Number(status[2]);
    // 1xx (100 Continue, 103 Early Hints): informational; the real answer's head follows. 101 is
    // an upgrade, which this client never asks for.
    if (code < 200) {
      if (code === 101) throw new Http1ParseError('Unexpected protocol switch');
      return;
    }
    const headers = new HeaderFields(status[3]!);
    this.#headed = true;
    const connection = readList(headers.get('connection'));
    this.#keepAlive = status[1] === '1' ? !connection.includes('close') : connection.includes('keep-alive');
    this.#keepAliveHint = headers.get('keep-alive') ?? undefined;
    this.#state = this.#readFraming(code, headers);
    this.#sink.onHead(code, headers);
    if (this.#state === State.Done) this.#sink.onEnd();
  }

  #readFraming(code: number, headers: HeaderFields): State {
    if (this.#noBody || code === 204 || code === 304) return State.Done;
    const coding = readList(headers.get('transfer-encoding'));
    const length = headers.get('content-length');
    if (coding.length) {
      // With both, the transfer coding wins and the connection is not used again (RFC 9112 6.3).
      if (length !== null) this.#keepAlive = false;
      if (coding[coding.length - 1] === 'chunked') return State.ChunkSize;
      this.#keepAlive = false;
      return State.UntilClose;
    }
    if (length !== null) {
      this.#remaining = Number(readContentLength(length));
      if (!Number.isSafeInteger(this.#remaining)) throw new Http1ParseError('Malformed content-length');
      return this.#remaining === 0 ? State.Done : State.Length;
    }
    this.#keepAlive = false;
    return State.UntilClose;
  }

  #startChunk(line: string): void {
    const semi = line.indexOf(';');
    const size = (semi < 0 ? line : line.slice(0, semi)).trim();
    if (!HEX.test(size) || size.length > 12) throw new Http1ParseError('Malformed chunk size');
    this.#remaining = parseInt(size, 16);
    this.#state = this.#remaining === 0 ? State.Trailers : State.ChunkData;
  }

  /** One CRLF-ended line (a chunk size, a chunk's end or a trailer), across reads if need be. */
  #readLine(data: Uint8Array, at: number): { text: string; next: number } | undefined {
    const lf = data.indexOf(LF, at);
    const pending = this.#pending;
    if (lf < 0) {
      const rest = data.subarray(at);
      this.#pending = pending ? joinTwo(pending, rest) : copyBytes(rest, 0);
      if (this.#pending.length > MAX_CHUNK_LINE) throw new Http1ParseError('Line too long');
      return undefined;
    }
    const bytes = pending ? joinTwo(pending, data.subarray(at, lf + 1)) : data.subarray(at, lf + 1);
    this.#pending = undefined;
    if (bytes.length < 2 || bytes[bytes.length - 2] !== CR) throw new Http1ParseError('Line not ended by CRLF');
    if (bytes.length > MAX_CHUNK_LINE) throw new Http1ParseError('Line too long');
    return { text: readLatin1(bytes, 0, bytes.length - 2), next: lf + 1 };
  }
}

/** Offset just past the CRLFCRLF that ends a head, searching from `scan`; -1 when not there yet. */
function findHeadEnd(bytes: Uint8Array, scan: number): number {
  const at = asBuffer(bytes).indexOf(HEAD_END, scan);
  return at < 0 ? -1 : at + 4;
}

const HEAD_END = Buffer.from('\r\n\r\n', 'latin1');

/** The same bytes as a Buffer, for its native searches and latin1 decoding (no copy). */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The one number a content-length holds: repeated or comma-joined, every value must be the same. */
function readContentLength(value: string): string {
  if (DIGITS.test(value)) return value;
  const values = value.split(',');
  const first = values[0]!.trim();
  for (const other of values) if (other.trim() !== first) throw new Http1ParseError('Malformed content-length');
  if (!DIGITS.test(first)) throw new Http1ParseError('Malformed content-length');
  return first;
}

/** Comma-separated tokens of a header, lower-cased (`connection`, `transfer-encoding`). */
function readList(value: string | null): string[] {
  if (value === null) return [];
  // One token as the usual `keep-alive` or `chunked` comes: no split.
  if (TOKEN.test(value)) return [value.toLowerCase()];
  const out: string[] = [];
  for (const part of value.split(',')) {
    const token = part.trim().toLowerCase();
    if (token) out.push(token);
  }
  return out;
}

/**
 * A copy of `bytes` from `from` on. Not `slice`: on a Buffer (what sockets read into) it is a view,
 * and Node's client reads every socket into one buffer that the next read overwrites.
 */
function copyBytes(bytes: Uint8Array, from: number): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, from);
}

function joinTwo(a: Uint8Array, b: Uint8Array): Uint8Array {
  return joinBytes([a, b], a.byteLength + b.byteLength);
}

/** Header bytes as text, one character per byte (RFC 9110 treats non-ASCII field bytes as opaque). */
function readLatin1(bytes: Uint8Array, start: number, end: number): string {
  return asBuffer(bytes).toString('latin1', start, end);
}
