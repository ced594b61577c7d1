/** @see https://console.groq.com/docs/reasoning#reasoning-format */
export interface ContentPiece {
  kind: 'reasoning' | 'text';
  text: string;
}

export interface ThinkTagReader {
  /** One content fragment in; the pieces that are already certain out. */
  push(fragment: string): ContentPiece[];
  /** End of content: whatever was held back. */
  end(): ContentPiece[];
  /**
   * Past any leading reasoning, nothing held back: every further fragment is text as it is, so a
   * stream reader can take it without a `push` (no array and piece object per fragment).
   */
  passing(): boolean;
  /** Not yet passing, and the next fragment with text may make it so (no `<think>` open). */
  deciding(): boolean;
}

const OPEN = '<think>';
const CLOSE = '</think>';

/**
 * Hosts in "raw" reasoning mode (Groq `reasoning_format: raw`, llama.cpp without a reasoning
 * parser) put the reasoning inline as a leading `<think>…</think>` in `content`. Only a tag at
 * the very start counts, so a model that merely mentions the tag later is left alone. Tags may be
 * split across stream fragments: the few characters that could still start a tag are held back,
 * nothing else is delayed.
 */
export function readThinkTags(): ThinkTagReader {
  let state: 'detect' | 'inside' | 'after' | 'text' = 'detect';
  let held = '';

  const push = (fragment: string): ContentPiece[] => {
    const out: ContentPiece[] = [];
    let rest = fragment;
    while (rest) {
      if (state === 'text') {
        out.push({ kind: 'text', text: rest });
        break;
      }
      if (state === 'after') {
        // The blank line models put after </think> is not part of the answer.
        rest = rest.trimStart();
        if (rest) state = 'text';
        continue;
      }
      if (state === 'detect') {
        held += rest;
        rest = '';
        const lead = held.trimStart();
        if (lead.startsWith(OPEN)) {
          state = 'inside';
          rest = lead.slice(OPEN.length);
          held = '';
        } else if (lead && !OPEN.startsWith(lead)) {
          state = 'text';
          rest = held;
          held = '';
        }
        continue;
      }
      held += rest;
      rest = '';
      const close = held.indexOf(CLOSE);
      if (close >= 0) {
        if (close > 0) out.push({ kind: 'reasoning', text: held.slice(0, close) });
        rest = held.slice(close + CLOSE.length);
        held = '';
        state = 'after';
        continue;
      }
      const keep = partialTagLength(held);
      if (held.length > keep) out.push({ kind: 'reasoning', text: held.slice(0, held.length - keep) });
      held = held.slice(held.length - keep);
    }
    return out;
  };

  const end = (): ContentPiece[] => {
    const text = held;
    held = '';
    if (!text) return [];
    // An unclosed <think> (cut by max tokens) is still reasoning; an undecided start is text.
    return [{ kind: state === 'inside' ? 'reasoning' : 'text', text }];
  };

  return {
    push,
    end,
    // A method, not a getter: see Stage (core/http/stage.ts).
    passing: () => state === 'text',
    deciding: () => state === 'detect' || state === 'after',
  };
}

/** Length of the longest suffix of `text` that is a proper prefix of `</think>`. */
function partialTagLength(text: string): number {
  for (let n = Math.min(CLOSE.length - 1, text.length); n > 0; n--) {
    if (CLOSE.startsWith(text.slice(-n))) return n;
  }
  return 0;
}
