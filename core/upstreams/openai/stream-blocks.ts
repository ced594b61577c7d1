/** @see https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types */
import type { JsonTextSpan } from '../../http/json-text-span.ts';
import { SpanTextDelta, type StreamEvent } from '../../ir.ts';
import { mintReasoningSignature } from '../../signature.ts';

/** The one block a stream may have open; `toolKey` ties a tool-call block to its upstream call. */
interface OpenBlock {
  kind: 'text' | 'reasoning' | 'tool';
  index: number;
  toolKey?: string;
  /** Reasoning text so far, for the signature minted when the block closes. */
  reasoning: string;
}

export interface StreamBlocks {
  /** Key of the tool call whose block is open, if the open block is a tool call. */
  openToolKey(): string | undefined;
  /** Appends to the open block of that kind, closing any other block and starting one first. */
  append(kind: 'text' | 'reasoning', text: string): void;
  /** `append(kind, …)` of text still in the upstream's bytes. */
  appendSpan(kind: 'text' | 'reasoning', span: JsonTextSpan): void;
  startTool(toolKey: string, id: string, name: string): void;
  /** Argument JSON for the open tool-call block. */
  toolInput(json: string): void;
  close(): void;
}

/**
 * IR block bookkeeping: running indices, exactly one open block, and the gateway-minted signature
 * on every reasoning block (so a client replaying the text unchanged can be trusted, see signature.ts).
 */
export function createStreamBlocks(emit: (event: StreamEvent) => void): StreamBlocks {
  let next = 0;
  let open: OpenBlock | undefined;

  const close = () => {
    if (!open) return;
    if (open.kind === 'reasoning') emit({ type: 'signature', index: open.index, signature: mintReasoningSignature(open.reasoning) });
    emit({ type: 'block-end', index: open.index });
    open = undefined;
  };

  const openFor = (kind: 'text' | 'reasoning'): OpenBlock => {
    if (open?.kind !== kind) {
      close();
      open = { kind, index: next++, reasoning: '' };
      emit({ type: 'block-start', index: open.index, block: { type: kind } });
    }
    return open;
  };

  return {
    // A method, not a getter: see Stage (core/http/stage.ts).
    openToolKey: () => (open?.kind === 'tool' ? open.toolKey : undefined),
    append(kind, text) {
      const block = openFor(kind);
      if (kind === 'reasoning') {
        block.reasoning += text;
        emit({ type: 'reasoning-delta', index: block.index, text });
      } else {
        emit({ type: 'text-delta', index: block.index, text });
      }
    },
    appendSpan(kind, span) {
      const block = openFor(kind);
      if (kind === 'text') {
        emit(new SpanTextDelta(block.index, span));
        return;
      }
      // Reasoning is decoded all the same: the signature minted at the block's end signs its text.
      const text = span.text();
      block.reasoning += text;
      emit({ type: 'reasoning-delta', index: block.index, text, span });
    },
    startTool(toolKey, id, name) {
      close();
      open = { kind: 'tool', index: next++, toolKey, reasoning: '' };
      emit({ type: 'block-start', index: open.index, block: { type: 'tool-call', id, name } });
    },
    toolInput(json) {
      if (open?.kind === 'tool') emit({ type: 'tool-input-delta', index: open.index, json });
    },
    close,
  };
}
