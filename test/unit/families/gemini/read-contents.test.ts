import { describe, expect, it } from 'vitest';
import { readGeminiContents } from '../../../../core/families/gemini/read-contents.ts';
import type { GeminiContent } from '../../../../core/families/gemini/schema.ts';

const call = (name: string, args: Record<string, unknown> = {}, id?: string) => ({ functionCall: { ...(id && { id }), name, args } });
const answer = (name: string, output: unknown, id?: string) => ({ functionResponse: { ...(id && { id }), name, response: { output } } });
const result = (callId: string, name: string, text: string) => ({ type: 'tool-result', callId, name, content: [{ type: 'text', text }] });

describe('readGeminiContents', () => {
  it('merges the consecutive model contents of a streamed SDK chat history, joining text pieces', () => {
    const contents: GeminiContent[] = [
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hel' }] },
      { role: 'model', parts: [{ text: 'lo' }] },
      { role: 'model', parts: [{ text: '' }] },
      { role: 'user', parts: [{ text: 'One' }] },
      { role: 'user', parts: [{ text: 'Two' }] },
    ];
    expect(readGeminiContents(contents)).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] },
      // User texts stay separate parts: joining them would change what was said.
      { role: 'user', parts: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
    ]);
  });

  it('treats the legacy "function" role as user', () => {
    const contents: GeminiContent[] = [
      { role: 'model', parts: [call('f')] },
      { role: 'function', parts: [answer('f', 'ok')] },
    ];
    expect(readGeminiContents(contents)[1]).toEqual({ role: 'user', parts: [result('call_0_0', 'f', 'ok')] });
  });

  it('synthesises call ids from positions and pairs id-less results by name, then by position', () => {
    const contents: GeminiContent[] = [
      { role: 'user', parts: [{ text: 'go' }] },
      { role: 'model', parts: [call('search', { q: 'a' }), call('read', { p: 1 }), call('search', { q: 'b' })] },
      { role: 'user', parts: [answer('read', 'R'), answer('search', 'S1'), answer('search', 'S2')] },
      { role: 'model', parts: [call('x'), call('y')] },
      // Names that match nothing fall back to position among the unanswered calls.
      { role: 'user', parts: [answer('y', 'Y'), answer('unknown', 'U')] },
    ];
    const messages = readGeminiContents(contents);
    expect(messages[1]!.parts.map((p) => (p.type === 'tool-call' ? p.id : p.type))).toEqual(['call_1_0', 'call_1_1', 'call_1_2']);
    expect(messages[2]!.parts).toEqual([result('call_1_1', 'read', 'R'), result('call_1_0', 'search', 'S1'), result('call_1_2', 'search', 'S2')]);
    expect(messages[4]!.parts).toEqual([result('call_3_1', 'y', 'Y'), result('call_3_0', 'unknown', 'U')]);
  });

  it('uses ids when both sides have them, and the call id when only the call has one', () => {
    const contents: GeminiContent[] = [
      { role: 'model', parts: [call('f', {}, 'fc-1'), call('f', {}, 'fc-2')] },
      { role: 'user', parts: [answer('f', 'second', 'fc-2'), answer('f', 'first')] },
    ];
    const [model, user] = readGeminiContents(contents);
    expect(model!.parts.map((p) => (p.type === 'tool-call' ? p.id : ''))).toEqual(['fc-1', 'fc-2']);
    expect(user!.parts).toEqual([result('fc-2', 'f', 'second'), result('fc-1', 'f', 'first')]);
  });

  it('synthesises an id for a result with no call to pair with', () => {
    const contents: GeminiContent[] = [{ role: 'user', parts: [{ text: 'x' }, answer('f', 'lonely')] }];
    expect(readGeminiContents(contents)[0]!.parts[1]).toEqual(result('call_0_1', 'f', 'lonely'));
  });

  it('unwraps output/result/error and marks errors', () => {
    const contents: GeminiContent[] = [
      { role: 'model', parts: [call('a'), call('b'), call('c')] },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'a', response: { error: 'boom' } } },
          { functionResponse: { name: 'b', response: { result: { n: 1 } } } },
          { functionResponse: { name: 'c', response: { output: 'x', meta: 2 }, parts: [{ inlineData: { mimeType: 'image/png', data: 'AA==' } }] } },
        ],
      },
    ];
    expect(readGeminiContents(contents)[1]!.parts).toEqual([
      { type: 'tool-result', callId: 'call_0_0', name: 'a', content: [{ type: 'text', text: 'boom' }], isError: true },
      result('call_0_1', 'b', '{"n":1}'),
      {
        type: 'tool-result',
        callId: 'call_0_2',
        name: 'c',
        content: [
          { type: 'text', text: '{"output":"x","meta":2}' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AA==' } },
        ],
      },
    ]);
  });

  it('reads a foreign signature on a thought part together with that part\'s text', () => {
    const contents: GeminiContent[] = [{ role: 'model', parts: [{ text: 'abc', thought: true, thoughtSignature: 'sy1.anthropic.SIG' }, { text: 'ok' }] }];
    expect(readGeminiContents(contents)[0]!.parts).toEqual([
      { type: 'reasoning', text: 'abc', signature: { origin: 'anthropic', value: 'SIG' } },
      { type: 'text', text: 'ok' },
    ]);
  });
});
