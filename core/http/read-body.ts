import { GatewayError } from '../errors.ts';
import { joinBytes } from './join-bytes.ts';

/**
 * Reads a request body, refusing it with 413 as soon as it grows past `limit` bytes, so an
 * oversized upload is never held in memory whole.
 */
export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  // A declared length within the limit is held to by the server's HTTP parser: the body can be
  // taken whole, which skips the web stream on runtimes that offer `bytes()` (the Node adapter).
  if (declared !== null) {
    const whole = request as Request & { bytes?: () => Promise<Uint8Array> };
    const bytes = whole.bytes ? await whole.bytes() : new Uint8Array(await request.arrayBuffer());
    // Where nothing parsed the length (an event handed to a handler), it may not be true.
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
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

/** Parses a JSON object body; malformed JSON or a non-object is a 400 with its own message. */
export async function readJsonBody(request: Request, limit: number): Promise<{ bytes: Uint8Array; text: string; json: Record<string, unknown> }> {
  const bytes = await readBodyBytes(request, limit);
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
  return { bytes, text, json: json as Record<string, unknown> };
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('request_too_large', `Request body is larger than the limit of ${limit} bytes`);
}
