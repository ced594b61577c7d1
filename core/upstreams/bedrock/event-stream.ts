/** @see https://docs.aws.amazon.com/transcribe/latest/dg/streaming-setting-up.html#streaming-event-encoding */
import { joinBytes } from '../../http/join-bytes.ts';

export type EventStreamHeaderValue = string | number | boolean | Uint8Array;

/** One decoded `application/vnd.amazon.eventstream` message. */
export interface EventStreamFrame {
  headers: Record<string, EventStreamHeaderValue>;
  body: Uint8Array;
}

const PRELUDE = 12;
const MIN_FRAME = 16;
/** AWS caps a message at 16 MiB (+ headers); anything larger is a corrupt length, not a frame. */
const MAX_FRAME = 24 * 1024 * 1024;

/**
 * Bytes → frames. Waits for whole frames across chunk boundaries and checks both CRCs. Written
 * here rather than imported: @smithy/eventstream-codec resolves to @smithy/core's Node build
 * (node:zlib, node:fs, node:stream) on every server runtime, and core/ must stay web-only.
 *
 * Corrupt input never stops the stream silently: it becomes one last frame shaped like AWS's own
 * unmodeled error (`:message-type: error`), so consumers handle both on one path; the rest of
 * the input is refused, which cancels the upstream body.
 */
export function readEventStream(): TransformStream<Uint8Array, EventStreamFrame> {
  // The start of a frame not yet whole: pieces joined once the frame is (a large frame arrives in
  // many reads, and joining at each read would copy it over and over).
  let pending: Uint8Array[] = [];
  let pendingSize = 0;
  /** The length the pending frame declares, once its first four bytes are in; else 0. */
  let pendingTotal = 0;
  let failed = false;
  return new TransformStream<Uint8Array, EventStreamFrame>({
    transform(chunk, controller) {
      if (failed) return;
      let buf = chunk;
      if (pendingSize > 0) {
        pending.push(chunk);
        pendingSize += chunk.length;
        if (pendingSize < pendingTotal) return;
        buf = joinBytes(pending, pendingSize);
        pending = [];
        pendingSize = 0;
      }
      let offset = 0;
      pendingTotal = 0;
      while (buf.length - offset >= 4) {
        const view = new DataView(buf.buffer, buf.byteOffset + offset, buf.length - offset);
        const total = view.getUint32(0, false);
        if (total < MIN_FRAME || total > MAX_FRAME) return fail(controller, `a frame declares an impossible length (${total} bytes)`);
        if (buf.length - offset < total) {
          pendingTotal = total;
          break;
        }
        const frame = decodeFrame(buf.subarray(offset, offset + total));
        if (typeof frame === 'string') return fail(controller, frame);
        controller.enqueue(frame);
        offset += total;
      }
      if (offset < buf.length) {
        // Copied so the (possibly large) chunk the tail came from can be collected.
        pending = [buf.slice(offset)];
        pendingSize = buf.length - offset;
      }
    },
    flush(controller) {
      if (!failed && pendingSize) fail(controller, `the stream ended inside a frame (${pendingSize} bytes left)`);
    },
  });

  function fail(controller: TransformStreamDefaultController<EventStreamFrame>, detail: string): void {
    failed = true;
    pending = [];
    pendingSize = 0;
    controller.enqueue(errorFrame(`Bedrock sent a malformed event stream: ${detail}`));
    controller.terminate();
  }
}

/** The frame readers see when the byte stream itself is broken. */
export function errorFrame(message: string): EventStreamFrame {
  return { headers: { ':message-type': 'error', ':error-code': 'MalformedEventStream', ':error-message': message }, body: new Uint8Array(0) };
}

/** One whole message → frame, or a string saying what is wrong with it. */
function decodeFrame(bytes: Uint8Array): EventStreamFrame | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const total = bytes.length;
  const headersLength = view.getUint32(4, false);
  if (PRELUDE + headersLength + 4 > total) return `a frame's headers (${headersLength} bytes) overrun the frame`;
  if (crc32(bytes.subarray(0, 8)) !== view.getUint32(8, false)) return 'prelude CRC mismatch';
  if (crc32(bytes.subarray(0, total - 4)) !== view.getUint32(total - 4, false)) return 'message CRC mismatch';
  const headers = decodeHeaders(bytes.subarray(PRELUDE, PRELUDE + headersLength));
  if (typeof headers === 'string') return headers;
  return { headers, body: bytes.slice(PRELUDE + headersLength, total - 4) };
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

function decodeHeaders(bytes: Uint8Array): Record<string, EventStreamHeaderValue> | string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
  const headers: Record<string, EventStreamHeaderValue> = {};
  let i = 0;
  const need = (n: number) => i + n <= bytes.length;
  while (i < bytes.length) {
    const nameLength = bytes[i]!;
    if (!need(1 + nameLength + 1)) return 'truncated header name';
    const name = utf8.decode(bytes.subarray(i + 1, i + 1 + nameLength));
    i += 1 + nameLength;
    const type = bytes[i++]!;
    let value: EventStreamHeaderValue;
    switch (type) {
      case 0: value = true; break;
      case 1: value = false; break;
      case 2: if (!need(1)) return 'truncated header'; value = view.getInt8(i); i += 1; break;
      case 3: if (!need(2)) return 'truncated header'; value = view.getInt16(i, false); i += 2; break;
      case 4: if (!need(4)) return 'truncated header'; value = view.getInt32(i, false); i += 4; break;
      case 5:
      case 8: if (!need(8)) return 'truncated header'; value = Number(view.getBigInt64(i, false)); i += 8; break;
      case 6:
      case 7: {
        if (!need(2)) return 'truncated header';
        const length = view.getUint16(i, false);
        if (!need(2 + length)) return 'truncated header value';
        const raw = bytes.slice(i + 2, i + 2 + length);
        value = type === 7 ? utf8.decode(raw) : raw;
        i += 2 + length;
        break;
      }
      case 9: if (!need(16)) return 'truncated header'; value = hex(bytes.subarray(i, i + 16)); i += 16; break;
      default: return `unknown header value type ${type}`;
    }
    headers[name] = value;
  }
  return headers;
}

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += b.toString(16).padStart(2, '0');
  return out;
}

/** CRC-32 (IEEE 802.3, the zlib one), table-driven. */
const TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
