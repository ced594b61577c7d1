import { EventStreamCodec } from '@smithy/eventstream-codec';

/**
 * AWS event-stream frames for tests and the fake Bedrock server, encoded with the AWS SDK's own
 * codec so the gateway's decoder is checked against an independent implementation.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const codec = new EventStreamCodec((bytes) => decoder.decode(bytes), (text) => encoder.encode(text));

type MessageHeaders = Parameters<EventStreamCodec['encode']>[0]['headers'];

const str = (value: string) => ({ type: 'string' as const, value });

export function encodeFrame(headers: MessageHeaders, body: Uint8Array | string = new Uint8Array(0)): Uint8Array {
  return codec.encode({ headers, body: typeof body === 'string' ? encoder.encode(body) : body });
}

/** A modelled event (`:message-type: event`), payload as Bedrock sends it (no wrapper key). */
export function eventFrame(eventType: string, payload: unknown): Uint8Array {
  return encodeFrame(
    { ':message-type': str('event'), ':event-type': str(eventType), ':content-type': str('application/json') },
    JSON.stringify(payload),
  );
}

/** A modelled exception, e.g. `throttlingException` with `{"message": …}`. */
export function exceptionFrame(exceptionType: string, payload: unknown): Uint8Array {
  return encodeFrame(
    { ':message-type': str('exception'), ':exception-type': str(exceptionType), ':content-type': str('application/json') },
    JSON.stringify(payload),
  );
}

/** An unmodelled error: code and message in headers, no payload. */
export function errorFrame(code: string, message: string): Uint8Array {
  return encodeFrame({ ':message-type': str('error'), ':error-code': str(code), ':error-message': str(message) });
}

/** InvokeModelWithResponseStream `chunk` event: one Anthropic stream event, base64 in `bytes`. */
export function chunkFrame(anthropicEvent: unknown, padding = 'abcdefgh'): Uint8Array {
  const json = typeof anthropicEvent === 'string' ? anthropicEvent : JSON.stringify(anthropicEvent);
  const bytes = encoder.encode(json);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return eventFrame('chunk', { bytes: btoa(binary), p: padding });
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Splits bytes at the given offsets (for frame-boundary tests). */
export function splitAt(bytes: Uint8Array, ...offsets: number[]): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (const offset of [...offsets, bytes.length]) {
    out.push(bytes.slice(start, offset));
    start = offset;
  }
  return out;
}
