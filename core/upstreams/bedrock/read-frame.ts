/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html */
import { GatewayError } from '../../errors.ts';
import type { EventStreamFrame } from './event-stream.ts';
import { bedrockError } from './read-error.ts';

/** What one event-stream frame means to a Bedrock reader. */
export type BedrockFrame =
  | { kind: 'event'; type: string; payload: Record<string, unknown> }
  | { kind: 'error'; error: GatewayError }
  /** A message type this reader does not know: skipped, as the AWS SDK does. */
  | { kind: 'unknown' };

const utf8 = new TextDecoder();

/**
 * Classifies a frame by `:message-type`. Modelled exceptions (`:exception-type`, JSON payload
 * with `message`) and unmodelled errors (`:error-code` / `:error-message` headers) both become
 * GatewayErrors: events already delivered before them stay valid.
 */
export function readBedrockFrame(frame: EventStreamFrame): BedrockFrame {
  const messageType = frame.headers[':message-type'];
  if (messageType === 'event') {
    const type = String(frame.headers[':event-type'] ?? '');
    const payload = parsePayload(frame.body);
    if (!payload) return { kind: 'error', error: new GatewayError('upstream', `Bedrock sent a "${type}" event that is not a JSON object`) };
    return { kind: 'event', type, payload };
  }
  if (messageType === 'exception') {
    const type = String(frame.headers[':exception-type'] ?? 'exception');
    const payload = parsePayload(frame.body);
    const message = typeof payload?.message === 'string' ? payload.message : typeof payload?.Message === 'string' ? payload.Message : undefined;
    return { kind: 'error', error: bedrockError(type, message) };
  }
  if (messageType === 'error') {
    const code = String(frame.headers[':error-code'] ?? 'error');
    const message = frame.headers[':error-message'];
    return { kind: 'error', error: bedrockError(code, typeof message === 'string' ? message : undefined) };
  }
  return { kind: 'unknown' };
}

/** InvokeModelWithResponseStream `chunk` payload: `bytes` is base64 of one Anthropic event's JSON text. */
export function readChunkText(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.bytes !== 'string') return undefined;
  try {
    const binary = atob(payload.bytes);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

function parsePayload(body: Uint8Array): Record<string, unknown> | undefined {
  if (!body.length) return {};
  try {
    const value: unknown = JSON.parse(utf8.decode(body));
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
