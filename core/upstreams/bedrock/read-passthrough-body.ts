/** @see https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html */
import { GatewayError } from '../../errors.ts';
import { writeAnthropicError } from '../../families/anthropic/write-error.ts';
import type { PassthroughCall, UpstreamResponse } from '../types.ts';
import { type EventStreamFrame, readEventStream } from './event-stream.ts';
import { readBedrockFrame, readChunkText } from './read-frame.ts';

const encoder = new TextEncoder();
const METRICS = 'amazon-bedrock-invocationMetrics';

/**
 * What a Claude-style client gets from Claude on Bedrock: the binary event stream re-framed as
 * Anthropic SSE (`event: <type>` + the chunk's JSON, byte for byte), a non-streaming message
 * relayed as it is, a count-tokens answer in Anthropic's shape.
 */
export function readBedrockPassthroughBody(res: UpstreamResponse, call: PassthroughCall): ReadableStream<Uint8Array> {
  if (call.action === 'count_tokens') return readCountTokens(res);
  if (!call.stream) return res.body ?? new ReadableStream({ start: (c) => c.close() });
  if (!res.body) return errorOnly(new GatewayError('upstream', 'Bedrock sent an empty stream'));
  return res.body.pipeThrough(readEventStream()).pipeThrough(writeAnthropicSse());
}

/**
 * Frames → SSE bytes. An exception frame (or broken framing) becomes Anthropic's mid-stream
 * `event: error` and ends the stream; the upstream body is then cancelled.
 */
export function writeAnthropicSse(): TransformStream<EventStreamFrame, Uint8Array> {
  let failed = false;
  let sent = false;
  const fail = (controller: TransformStreamDefaultController<Uint8Array>, error: GatewayError) => {
    failed = true;
    // Before any event the response is not committed yet: erroring lets the pipeline answer
    // with the error's own status (429 for throttling) instead of a 200 carrying an error event.
    if (!sent) return controller.error(error);
    controller.enqueue(errorFrame(error));
    controller.terminate();
  };
  return new TransformStream<EventStreamFrame, Uint8Array>({
    transform(raw, controller) {
      if (failed) return;
      const frame = readBedrockFrame(raw);
      if (frame.kind === 'error') return fail(controller, frame.error);
      if (frame.kind !== 'event' || frame.type !== 'chunk') return;
      let data = readChunkText(frame.payload);
      let type: unknown;
      try {
        type = data === undefined ? undefined : (JSON.parse(data) as { type?: unknown }).type;
      } catch {
        type = undefined;
      }
      if (typeof type !== 'string' || data === undefined) return fail(controller, new GatewayError('upstream', 'Bedrock sent a stream chunk that is not an Anthropic event'));
      // Bedrock's usage report rides on the last event; Anthropic clients have no field for it.
      if (data.includes(METRICS)) data = withoutMetrics(data);
      sent = true;
      controller.enqueue(encoder.encode(`event: ${type}\ndata: ${data}\n\n`));
    },
  });
}

function withoutMetrics(data: string): string {
  const event = JSON.parse(data) as Record<string, unknown>;
  delete event[METRICS];
  return JSON.stringify(event);
}

function errorFrame(error: GatewayError): Uint8Array {
  return encoder.encode(`event: error\ndata: ${JSON.stringify(writeAnthropicError(error).body)}\n\n`);
}

function errorOnly(error: GatewayError): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(errorFrame(error));
      controller.close();
    },
  });
}

/**
 * CountTokens `{"inputTokens": n}` → Anthropic's `{"input_tokens": n}`. An answer without a count
 * errors the stream before its first chunk, so the caller still chooses the status (another
 * route, or the marked estimate) instead of sending an error body under a 200.
 */
function readCountTokens(res: UpstreamResponse): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(controller) {
      const body = (await res.json().catch(() => undefined)) as { inputTokens?: unknown } | undefined;
      if (typeof body?.inputTokens !== 'number') return controller.error(new GatewayError('upstream', 'Bedrock sent a token count without inputTokens'));
      controller.enqueue(encoder.encode(JSON.stringify({ input_tokens: body.inputTokens })));
      controller.close();
    },
  });
}
