/**
 * A long agent conversation as a coding agent sends it (Claude Code's shape: a system prompt in
 * blocks with a cache breakpoint, ~20 tools with JSON schemas, and turns of tool calls whose
 * results are source files), ~100,000 tokens (~400 KB) of Claude-style Messages JSON. Built from
 * a fixed seed, so every run and runtime sends the same bytes; some text is non-ASCII, as real
 * code and prose often is, which makes engines decode and parse it as two-byte strings.
 */
const WORDS = [
  'const', 'return', 'await', 'request', 'response', 'stream', 'usage', 'tokens', 'model', 'upstream',
  'gateway', 'header', 'timeout', 'retry', 'budget', 'record', 'reader', 'writer', 'chunk', 'event',
  'function', 'export', 'import', 'interface', 'string', 'number', 'boolean', 'undefined', 'null', 'if',
  'else', 'for', 'while', 'throw', 'new', 'Error', 'Promise', 'async', 'type', 'readonly',
];
const ACCENTED = ['café', 'naïve', 'façade', 'résumé', '— see', 'ü', '→', '“quoted”', 'Zürich', 'déjà'];

/** A small deterministic generator (mulberry32): the same numbers on every runtime. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sourceFile(next: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const indent = '  '.repeat(Math.floor(next() * 4));
    const words: string[] = [];
    const count = 3 + Math.floor(next() * 9);
    for (let w = 0; w < count; w++) words.push(next() < 0.02 ? ACCENTED[Math.floor(next() * ACCENTED.length)]! : WORDS[Math.floor(next() * WORDS.length)]!);
    // Quotes, backslashes and tabs, which JSON escapes.
    const tail = next() < 0.1 ? ` // "${words[0]}" \\ path\tnote` : ';';
    out.push(`${String(i + 1).padStart(5)}\t${indent}${words.join(' ')}${tail}`);
  }
  return out.join('\n');
}

function tool(next: () => number, i: number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const fields = 2 + Math.floor(next() * 5);
  for (let f = 0; f < fields; f++) {
    properties[`${WORDS[(i + f) % WORDS.length]}_${f}`] = {
      type: f % 3 === 0 ? 'number' : 'string',
      description: `The ${WORDS[(i * 3 + f) % WORDS.length]} to use; ${sourceFile(next, 1).trim()}`,
    };
  }
  return {
    name: `tool_${i}_${WORDS[i % WORDS.length]}`,
    description: sourceFile(next, 12),
    input_schema: { type: 'object', properties, required: Object.keys(properties).slice(0, 1), additionalProperties: false },
  };
}

/**
 * The body, as JSON text of about `targetBytes` bytes: `model` and `stream` as given, tool turns
 * added until the size is reached, ending with a user turn.
 */
export function largeAnthropicBody(model: string, stream: boolean, targetBytes = 400_000): string {
  const next = seeded(20261128);
  const system = [
    { type: 'text', text: 'You are an interactive coding agent working in a repository on the user’s machine.' },
    { type: 'text', text: sourceFile(next, 120), cache_control: { type: 'ephemeral' } },
  ];
  const tools = Array.from({ length: 20 }, (_, i) => tool(next, i));
  const messages: Array<Record<string, unknown>> = [{ role: 'user', content: [{ type: 'text', text: 'Read the gateway sources and explain how usage is recorded.' }] }];
  const size = () => JSON.stringify({ model, max_tokens: 32000, stream, system, tools, messages }).length;
  for (let turn = 0; size() < targetBytes; turn++) {
    const id = `toolu_${String(turn).padStart(4, '0')}${Math.floor(next() * 1e9).toString(36)}`;
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `I will read file ${turn} next.` },
        { type: 'tool_use', id, name: 'tool_0_const', input: { const_0: turn, return_1: `src/file-${turn}.ts` } },
      ],
    });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: sourceFile(next, 40 + Math.floor(next() * 80)) }] });
  }
  messages.push({ role: 'user', content: [{ type: 'text', text: 'Now summarise what you found.' }] });
  return JSON.stringify({ model, max_tokens: 32000, stream, system, tools, messages });
}
