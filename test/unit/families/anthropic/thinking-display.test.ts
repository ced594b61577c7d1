import { describe, expect, it } from 'vitest';
import { readAnthropicRequest } from '../../../../core/families/anthropic/read-request.ts';
import { MessagesRequest } from '../../../../core/families/anthropic/schema.ts';
import { parseWith } from '../../../../core/validate.ts';

function read(thinking: Record<string, unknown>) {
  const body = parseWith(MessagesRequest, { model: 'acme.claude', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], thinking });
  const warnings: string[] = [];
  const req = readAnthropicRequest(body, { stream: true, warn: (w) => warnings.push(w) });
  return { thinking: req.thinking, warnings };
}

/** Claude Code 2.1.330 interactive sends `display: "updates"` (beta thinking-display-updates-2026-08-18). */
describe('thinking.display', () => {
  it('accepts display modes newer than the gateway, so they can pass through to Anthropic', () => {
    expect(() => parseWith(MessagesRequest, { model: 'm', max_tokens: 1, messages: [], thinking: { type: 'enabled', budget_tokens: 1024, display: 'updates' } })).not.toThrow();
  });

  it('translates an unknown mode as "summarized", and says so', () => {
    expect(read({ type: 'enabled', budget_tokens: 31999, display: 'updates' })).toEqual({
      thinking: { mode: 'enabled', budgetTokens: 31999, display: 'summarized' },
      warnings: ['thinking.display "updates" has no equivalent on this route; reasoning is shown as "summarized"'],
    });
  });

  it('keeps the known modes as they are', () => {
    expect(read({ type: 'adaptive', display: 'omitted' })).toEqual({ thinking: { mode: 'adaptive', display: 'omitted' }, warnings: [] });
    expect(read({ type: 'adaptive' })).toEqual({ thinking: { mode: 'adaptive' }, warnings: [] });
  });

  it('still refuses a display that is not a string', () => {
    expect(() => parseWith(MessagesRequest, { model: 'm', max_tokens: 1, messages: [], thinking: { type: 'adaptive', display: 3 } })).toThrow(/thinking\.display/);
  });
});
