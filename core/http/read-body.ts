import { GatewayError } from '../errors.ts';
import { joinBytes } from './join-bytes.ts';
import { JsonBody, KEEP_OBJECT_BYTES } from './json-body.ts';
import { scanJsonObject } from './json-scan.ts';

/**
 * Reads a request body, refusing it with 413 as soon as it grows past `limit` bytes, so an
 * oversized upload is never held in memory whole.
 */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  return checkSize(await readBody(request, limit), limit);
}

/**
 * The body's bytes, up to `limit`. Not async: where the runtime reads a body whole (see
 * readWholeBody) this is the runtime's own promise, so a handler that awaits it and then parses
 * with `parseJsonBody` waits on nothing else (an async reader between them cost each request a
 * promise and a microtask). A declared length is trusted only as far as the server's parser
 * holds the body to it: `parseJsonBody` checks the size again.
 */
export function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return Promise.reject(tooLarge(limit));
  return declared === null ? readStreamedBody(request, limit) : readWholeBody(request);
}

/** Where nothing parsed the declared length (an event handed to a handler), it may not be true. */
function checkSize(bytes: Uint8Array, limit: number): Uint8Array {
  if (bytes.byteLength > limit) throw tooLarge(limit);
  return bytes;
}

/**
 * A declared length within the limit is held to by the server's HTTP parser: the body can be
 * taken whole, which skips the web stream on runtimes that offer `bytes()` (the Node adapter).
 * Not async, so the common case waits on the runtime's own promise and nothing else.
 */
function readWholeBody(request: Request): Promise<Uint8Array> {
  const whole = request as Request & { bytes?: () => Promise<Uint8Array> };
  return whole.bytes ? whole.bytes() : request.arrayBuffer().then((buffer) => new Uint8Array(buffer));
}

async function readStreamedBody(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return joinBytes(chunks, size);
}

const decoder = new TextDecoder();

/**
 * A body from `readBody` → a JSON object; over the limit is a 413, malformed JSON or a
 * non-object a 400 with its own message. `await readBody(…)` then this, in the handler. A large
 * body is scanned, not parsed (see JsonBody), unless `parse` says its first route reads it as an
 * object (a translation: a scan first would be work thrown away, ~10% of such a call); one the
 * scan refuses is parsed, for the parser's verdict, or for the text a decoder makes of ill-formed
 * UTF-8.
 * `marker`: a string prefix the scan notes (see JsonBody.mayHoldString).
 */
export function parseJsonBody(body: Uint8Array, limit: number, options: { marker?: string; parse?: boolean } = {}): JsonBody {
  const bytes = checkSize(body, limit);
  if (bytes.byteLength > KEEP_OBJECT_BYTES && !options.parse) {
    const marker = options.marker ?? '';
    const scan = scanJsonObject(bytes, marker);
    if (scan) return JsonBody.fromScan(bytes, scan, marker);
  }
  const text = decoder.decode(bytes);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new GatewayError('invalid_request', 'Request body is not valid JSON');
  }
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object');
  }
  return new JsonBody(bytes, text, json as Record<string, unknown>);
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `Request body is larger than the limit of ${limit} bytes`);
}
