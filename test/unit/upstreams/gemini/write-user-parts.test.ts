import { describe, expect, it } from 'vitest';
import type { Message } from '../../../../core/ir.ts';
import { writeGeminiContents } from '../../../../core/upstreams/gemini/write-contents.ts';

/** Claude Code answers parallel calls in the order its tools finish (seen live: Glob before Bash). */
const history: Message[] = [
  { role: 'user', parts: [{ type: 'text', text: 'list files' }] },
  {
    role: 'assistant',
    parts: [
      { type: 'tool-call', id: 'gx_r1_0', name: 'Bash', input: { command: 'ls' } },
      { type: 'tool-call', id: 'gx_r1_1', name: 'Glob', input: { pattern: '*' } },
    ],
  },
  {
    role: 'user',
    parts: [
      { type: 'tool-result', callId: 'gx_r1_1', content: [{ type: 'text', text: 'b.md' }] },
      { type: 'text', text: 'and?' },
      { type: 'tool-result', callId: 'gx_r1_0', content: [{ type: 'text', text: 'a.txt' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBO' } }] },
    ],
  },
];

describe('writeGeminiUserParts (through writeGeminiContents)', () => {
  it('puts function responses in call order, because Gemini pairs id-less responses by position', () => {
    const contents = writeGeminiContents(history, 'gemini-2.5-flash', () => {});
    expect(contents[2]).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'Bash', response: { output: 'a.txt' } } },
        { functionResponse: { name: 'Glob', response: { output: 'b.md' } } },
        { inlineData: { mimeType: 'image/png', data: 'iVBO' } },
        { text: 'and?' },
      ],
    });
  });

  it('keeps the client order of results whose call is not in the history', () => {
    const orphanFirst: Message[] = [
      history[0]!,
      history[1]!,
      {
        role: 'user',
        parts: [
          { type: 'tool-result', callId: 'gx_r1_1', content: [{ type: 'text', text: 'b.md' }] },
          { type: 'tool-result', callId: 'elsewhere', name: 'Read', content: [{ type: 'text', text: 'x' }] },
          { type: 'tool-result', callId: 'gx_r1_0', content: [{ type: 'text', text: 'a.txt' }] },
        ],
      },
    ];
    const names = writeGeminiContents(orphanFirst, 'gemini-2.5-flash', () => {})[2]!.parts.map((p) => p.functionResponse?.name);
    expect(names).toEqual(['Bash', 'Glob', 'Read']);
  });
});
