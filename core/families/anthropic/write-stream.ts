/** @see https://platform.claude.com/docs/en/build-with-claude/streaming */
import { GatewayError } from '../../errors.ts';
import type { BlockStart, Signature, StreamEvent, Usage } from '../../ir.ts';
import type { SseMessage } from '../../http/sse-read.ts';
import { type Stage, stageStream } from '../../http/stage.ts';
import { writeSignature } from '../../signature.ts';
import { mapAnthropicFinishReason, type AnthropicStopReason } from './map-finish-reason.ts';
import { writeAnthropicError } from './write-error.ts';
import {
  MESSAGE_STOP_TEXT,
  PING_TEXT,
  TextDeltaFrame,
  writeBlockStopText,
  writeMessageDeltaText,
  writeMessageStartText,
  writeTextBlockStartText,
  writeTextDeltaText,
  writeThinkingBlockStartText,
  writeThinkingDeltaText,
} from './write-frame-text.ts';
import { writeAnthropicMessageId, writeAnthropicToolId, writeAnthropicUsage, writeSignatureCarrier } from './write-response.ts';

export interface WriteAnthropicStreamOptions {
  /** The model name the client asked for. */
  model: string;
  /** Message id used when the upstream gives none (or content arrives before its start). */
  id?: string;
}

type OpenKind = 'text' | 'thinking' | 'redacted' | 'tool' | 'raw' | 'skipped';

interface OpenBlock {
  kind: OpenKind;
  /** The IR index this block came from. */
  from: number;
  /** Our wire index, once content_block_start went out; text blocks open on their first text. */
  index?: number;
  /** Signatures on a text block (Gemini), carried once it closes. */
  signatures?: Signature[];
}

/**
 * IR stream events → the exact Anthropic event grammar: message_start, then each block as
 * content_block_start / deltas / content_block_stop with indices 0, 1, 2…, one ping after the
 * first block start, message_delta (always with usage.output_tokens) and message_stop. An error
 * event ends the stream with `event: error`. Blocks never overlap on the wire even if a reader
 * slips; a delta never lands in a block of another type.
 */
export function writeAnthropicStream(opts: WriteAnthropicStreamOptions): TransformStream<StreamEvent, SseMessage> {
  return stageStream(createAnthropicStreamWriter(opts));
}

/** `writeAnthropicStream` as a synchronous stage, to fuse with the reader before it. */
export function createAnthropicStreamWriter(opts: WriteAnthropicStreamOptions): Stage<StreamEvent, SseMessage> {
  let started = false;
  let done = false;
  let pinged = false;
  let next = 0;
  let calls = 0;
  let id = writeAnthropicMessageId(opts.id ?? '');
  let open: OpenBlock | undefined;
  /** Text signatures of a closed text block, waiting for a block to follow it. */
  let afterText: Signature[] = [];
  const usage: Partial<Usage> = {};

  let sink: (message: SseMessage) => void = () => {};

  const emit = (type: string, body: Record<string, unknown>) => sink(frame(type, body));
  // The frames every answer has are written as text (write-frame-text.ts), the rest as objects.
  const emitText = (type: string, data: string) => sink({ event: type, data });
  const delta = (index: number, body: Record<string, unknown>) => emit('content_block_delta', { index, delta: body });
  const start = (startUsage?: Partial<Usage>) => {
    if (started) return;
    started = true;
    Object.assign(usage, startUsage);
    emitText('message_start', writeMessageStartText(id, opts.model, writeAnthropicUsage(usage)));
  };
  /** `contentBlock`: an object, or the block kinds written as text. */
  const startBlock = (contentBlock: Record<string, unknown> | 'text' | 'thinking'): number => {
    const carried = afterText;
    afterText = [];
    for (const sig of carried) carrySignature(sig);
    const index = next++;
    if (contentBlock === 'text') emitText('content_block_start', writeTextBlockStartText(index));
    else if (contentBlock === 'thinking') emitText('content_block_start', writeThinkingBlockStartText(index));
    else emit('content_block_start', { index, content_block: contentBlock });
    if (!pinged) {
      pinged = true;
      emitText('ping', PING_TEXT);
    }
    return index;
  };
  /**
   * A text block's signatures follow its content_block_stop in carriers, but only once another
   * block comes: a message that ended on a thinking block would read as an empty answer to
   * Claude Code (`claude -p` prints the last block's text as the result). A turn-closing
   * signature (Gemini 3's trailing empty part) is therefore lost on streams; Gemini does not
   * validate those.
   */
  const close = () => {
    if (open?.index !== undefined) emitText('content_block_stop', writeBlockStopText(open.index));
    if (open?.signatures) afterText.push(...open.signatures);
    open = undefined;
  };
  const carrySignature = (sig: Signature) => {
    const carrier = startBlock('thinking');
    delta(carrier, { type: 'signature_delta', signature: writeSignatureCarrier(sig).signature });
    emitText('content_block_stop', writeBlockStopText(carrier));
  };
  /** The open block for a delta, opening a text or thinking block if the reader skipped its start. */
  const blockFor = (kind: OpenKind, from: number): OpenBlock | undefined => {
    if (open?.kind === 'skipped' && open.from === from) return undefined;
    if (open?.kind === kind && open.from === from) return open;
    if (kind !== 'text' && kind !== 'thinking') return undefined;
    close();
    open = { kind, from };
    if (kind === 'thinking') open.index = startBlock('thinking');
    return open;
  };
  const finish = (reason: AnthropicStopReason, stopSequence: string | null) => {
    close();
    emitText('message_delta', writeMessageDeltaText(reason, stopSequence, writeAnthropicUsage(usage)));
    emitText('message_stop', MESSAGE_STOP_TEXT);
    done = true;
  };

  return {
    push(event, out) {
      sink = out;
      if (done) return;
      if (event.type === 'start') {
        if (event.id) id = writeAnthropicMessageId(event.id);
        start(event.usage);
        return;
      }
      if (event.type === 'error') {
        out(writeAnthropicErrorFrame(event.error));
        done = true;
        return;
      }
      start();
      switch (event.type) {
        case 'block-start':
          close();
          open = openBlock(event.index, event.block, startBlock, carrySignature, () => `${id}_${calls++}`);
          return;
        case 'text-delta': {
          // A span is never empty; its text is not decoded here (see TextDeltaFrame).
          const { span } = event;
          const block = !span && event.text === '' ? undefined : blockFor('text', event.index);
          if (!block) return;
          block.index ??= startBlock('text');
          if (span) sink(new TextDeltaFrame(block.index, span));
          else emitText('content_block_delta', writeTextDeltaText(block.index, event.text));
          return;
        }
        case 'reasoning-delta': {
          const block = event.text === '' ? undefined : blockFor('thinking', event.index);
          if (!block) return;
          if (event.span) sink(new TextDeltaFrame(block.index!, event.span, 'thinking'));
          else emitText('content_block_delta', writeThinkingDeltaText(block.index!, event.text));
          return;
        }
        case 'signature': {
          // Anthropic signs only thinking blocks: a text block's signature (Gemini) waits for its
          // close (see `close`); other blocks carry theirs at their start.
          if (open?.from === event.index && open.kind === 'text') {
            (open.signatures ??= []).push(event.signature);
            return;
          }
          if (open?.from === event.index && open.kind !== 'thinking') return;
          const block = blockFor('thinking', event.index);
          if (block) delta(block.index!, { type: 'signature_delta', signature: writeSignature(event.signature, 'anthropic') });
          return;
        }
        case 'tool-input-delta': {
          const block = blockFor('tool', event.index) ?? blockFor('raw', event.index);
          if (block) delta(block.index!, { type: 'input_json_delta', partial_json: event.json });
          return;
        }
        case 'block-end':
          if (open?.from === event.index) close();
          return;
        case 'usage':
          Object.assign(usage, event.usage);
          return;
        case 'finish':
          Object.assign(usage, event.usage);
          finish(mapAnthropicFinishReason(event.reason), event.reason === 'stop-sequence' ? (event.stopSequence ?? null) : null);
          return;
        default: {
          const unknown: never = event;
          throw new Error(`unhandled stream event ${JSON.stringify(unknown)}`);
        }
      }
    },
    end(out) {
      sink = out;
      if (done) return;
      if (!started) {
        out(writeAnthropicErrorFrame(new GatewayError('upstream', 'Upstream ended the stream before sending anything')));
        return;
      }
      // The upstream stopped without a finish: end the message properly so SDK helpers still resolve.
      finish('end_turn', null);
    },
  };
}

function openBlock(from: number, block: BlockStart, startBlock: (b: Record<string, unknown> | 'thinking') => number, carrySignature: (sig: Signature) => void, fallbackId: () => string): OpenBlock {
  switch (block.type) {
    case 'text':
      return { kind: 'text', from };
    case 'reasoning':
      if (block.redacted !== undefined) return { kind: 'redacted', from, index: startBlock({ type: 'redacted_thinking', data: block.redacted }) };
      return { kind: 'thinking', from, index: startBlock('thinking') };
    case 'tool-call':
      if (block.signature) carrySignature(block.signature);
      return { kind: 'tool', from, index: startBlock({ type: 'tool_use', id: writeAnthropicToolId(block.id, fallbackId()), name: block.name, input: {} }) };
    case 'raw':
      // Another provider's block (a Gemini executable-code part, …) has no Anthropic form.
      if (block.origin !== 'anthropic') return { kind: 'skipped', from };
      return { kind: 'raw', from, index: startBlock(block.block) };
    default: {
      const unknown: never = block;
      throw new Error(`unhandled block ${JSON.stringify(unknown)}`);
    }
  }
}

function frame(type: string, body: Record<string, unknown>): SseMessage {
  return { event: type, data: JSON.stringify({ type, ...body }) };
}

/** The `event: error` frame, also used by the stream guard when the pipeline itself fails. */
export function writeAnthropicErrorFrame(err: GatewayError): SseMessage {
  return { event: 'error', data: JSON.stringify(writeAnthropicError(err).body) };
}
