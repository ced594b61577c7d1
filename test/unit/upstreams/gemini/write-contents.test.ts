import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../core/ir.ts';
import { writeGeminiContents } from '../../../../core/upstreams/gemini/write-contents.ts';

const gemini = (value: string) => ({ origin: 'gemini' as const, value });
const ask = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const results = (...ids: string[]): Message => ({
  role: 'user',
  parts: ids.map((callId) => ({ type: 'tool-result' as const, callId, content: [{ type: 'text' as const, text: `out ${callId}` }] })),
});

/** A Claude step (thinking signed by Anthropic, two parallel tool_use blocks). */
const claudeStep: Message = {
  role: 'assistant',
  parts: [
    { type: 'reasoning', text: '', signature: { origin: 'anthropic', value: 'EqQBCkYIBxgC' } },
    { type: 'text', text: 'Listing.' },
    { type: 'tool-call', id: 'toolu_01A', name: 'Bash', input: { command: 'ls' } },
    { type: 'tool-call', id: 'toolu_01B', name: 'Glob', input: { pattern: '*' } },
  ],
};

/** A Gemini 3 step as a Claude-style client replays it: the signature moved back onto the first call. */
const geminiStep: Message = {
  role: 'assistant',
  parts: [
    { type: 'tool-call', id: 'fc-1', name: 'Bash', input: { command: 'ls' }, signature: gemini('U0lHMQ==') },
    { type: 'tool-call', id: 'fc-2', name: 'Glob', input: { pattern: '*' } },
  ],
};

function write(messages: Message[], model = 'gemini-3-flash-preview') {
  const warnings: string[] = [];
  return { contents: writeGeminiContents(messages, model, (m) => warnings.push(m)), warnings };
}

describe('writeGeminiContents: function-call ids go only where Gemini issued them', () => {
  it('history from Claude: toolu_ ids are left out of calls and responses (Gemini 3 rejects ids it did not issue)', () => {
    const { contents, warnings } = write([ask('list files'), claudeStep, results('toolu_01B', 'toolu_01A'), { role: 'assistant', parts: [{ type: 'text', text: 'a.txt' }] }, ask('again')]);
    expect(contents).toEqual([
      { role: 'user', parts: [{ text: 'list files' }] },
      {
        role: 'model',
        parts: [{ text: 'Listing.' }, { functionCall: { name: 'Bash', args: { command: 'ls' } } }, { functionCall: { name: 'Glob', args: { pattern: '*' } } }],
      },
      // Without ids, results pair by position: they go in call order whatever order the client used.
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'Bash', response: { output: 'out toolu_01A' } } },
          { functionResponse: { name: 'Glob', response: { output: 'out toolu_01B' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'a.txt' }] },
      { role: 'user', parts: [{ text: 'again' }] },
    ]);
    expect(warnings).toEqual(['1 reasoning block(s) not produced by Gemini were dropped (Gemini cannot verify them)']);
  });

  it('other vendors\' ids (call_…, tooluse_…) in the current turn: no ids, and the escape signature on the first call', () => {
    const step = (id: string, name: string): Message => ({ role: 'assistant', parts: [{ type: 'tool-call', id, name, input: {} }] });
    const { contents } = write([ask('go'), step('call_abc', 'Bash'), results('call_abc'), step('tooluse_xyz', 'Glob'), results('tooluse_xyz')]);
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'Bash', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'Bash', response: { output: 'out call_abc' } } }] },
      { role: 'model', parts: [{ functionCall: { name: 'Glob', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'Glob', response: { output: 'out tooluse_xyz' } } }] },
    ]);
  });

  it('a Gemini 3 signed step keeps its ids on every call and every response', () => {
    const { contents, warnings } = write([ask('list files'), geminiStep, results('fc-2', 'fc-1')]);
    expect(contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'fc-1', name: 'Bash', args: { command: 'ls' } }, thoughtSignature: 'U0lHMQ==' },
          { functionCall: { id: 'fc-2', name: 'Glob', args: { pattern: '*' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc-1', name: 'Bash', response: { output: 'out fc-1' } } },
          { functionResponse: { id: 'fc-2', name: 'Glob', response: { output: 'out fc-2' } } },
        ],
      },
    ]);
    expect(warnings).toEqual([]);
  });

  it('a signature carried in an empty reasoning part before the call counts as Gemini\'s too', () => {
    const carried: Message = {
      role: 'assistant',
      parts: [
        { type: 'reasoning', text: '', signature: gemini('U0lHMg==') },
        { type: 'tool-call', id: 'fc-9', name: 'Bash', input: {} },
      ],
    };
    const { contents } = write([ask('go'), carried, results('fc-9')]);
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { id: 'fc-9', name: 'Bash', args: {} }, thoughtSignature: 'U0lHMg==' }] },
      { role: 'user', parts: [{ functionResponse: { id: 'fc-9', name: 'Bash', response: { output: 'out fc-9' } } }] },
    ]);
  });

  it('mixed history (a Claude step, then a Gemini 3 step in the current turn): each step as its origin allows', () => {
    const { contents, warnings } = write([ask('list files'), claudeStep, results('toolu_01A', 'toolu_01B'), { role: 'assistant', parts: [{ type: 'text', text: 'a.txt' }] }, ask('list again'), geminiStep, results('fc-1', 'fc-2')]);
    expect(contents.slice(1, 3)).toEqual([
      { role: 'model', parts: [{ text: 'Listing.' }, { functionCall: { name: 'Bash', args: { command: 'ls' } } }, { functionCall: { name: 'Glob', args: { pattern: '*' } } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'Bash', response: { output: 'out toolu_01A' } } },
          { functionResponse: { name: 'Glob', response: { output: 'out toolu_01B' } } },
        ],
      },
    ]);
    expect(contents.slice(5)).toEqual([
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'fc-1', name: 'Bash', args: { command: 'ls' } }, thoughtSignature: 'U0lHMQ==' },
          { functionCall: { id: 'fc-2', name: 'Glob', args: { pattern: '*' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'fc-1', name: 'Bash', response: { output: 'out fc-1' } } },
          { functionResponse: { id: 'fc-2', name: 'Glob', response: { output: 'out fc-2' } } },
        ],
      },
    ]);
    // The Claude step is in an earlier turn: Gemini 3 does not validate it, so no escape signature.
    expect(JSON.stringify(contents)).not.toContain('skip_thought_signature_validator');
    expect(warnings).toEqual(['1 reasoning block(s) not produced by Gemini were dropped (Gemini cannot verify them)']);
  });

  it('a Gemini client\'s turn signed only with a dummy value, and synthetic gx_ ids, never send ids', () => {
    const dummy: Message = {
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'toolu_07', name: 'Bash', input: {}, signature: gemini('skip_thought_signature_validator') },
        { type: 'tool-call', id: 'gx_r1_1', name: 'Glob', input: {} },
      ],
    };
    const signed25: Message = { role: 'assistant', parts: [{ type: 'tool-call', id: 'gx_r2_0', name: 'Bash', input: {}, signature: gemini('U0lHMw==') }] };
    const { contents } = write([ask('go'), dummy, results('toolu_07', 'gx_r1_1'), signed25, results('gx_r2_0')], 'gemini-2.5-flash');
    expect(contents.slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'Bash', args: {} }, thoughtSignature: 'skip_thought_signature_validator' }, { functionCall: { name: 'Glob', args: {} } }] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'Bash', response: { output: 'out toolu_07' } } },
          { functionResponse: { name: 'Glob', response: { output: 'out gx_r1_1' } } },
        ],
      },
      { role: 'model', parts: [{ functionCall: { name: 'Bash', args: {} }, thoughtSignature: 'U0lHMw==' }] },
      { role: 'user', parts: [{ functionResponse: { name: 'Bash', response: { output: 'out gx_r2_0' } } }] },
    ]);
  });

  it('a response whose id names no Gemini call goes without it, even next to a signed step', () => {
    const stray: Message = { role: 'user', parts: [{ type: 'tool-result', callId: 'toolu_zz', name: 'Read', content: [{ type: 'text', text: 'x' }] }] };
    const { contents } = write([ask('go'), geminiStep, { role: 'user', parts: [...results('fc-1', 'fc-2').parts, ...stray.parts] }]);
    expect(contents[2]!.parts.map((p) => p.functionResponse?.id)).toEqual(['fc-1', 'fc-2', undefined]);
  });
});
