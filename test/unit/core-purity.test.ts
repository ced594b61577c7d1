import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { listFiles } from '../helpers/list-files.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FORBIDDEN: Array<[RegExp, string]> = [
  [/from\s+['"]node:/, 'imports a node: module'],
  [/import\(\s*['"]node:/, 'imports a node: module'],
  [/require\(/, 'uses require()'],
  [/\bBuffer\b/, 'uses Buffer'],
  [/\bprocess\s*\./, 'uses process'],
  [/\bBun\s*\./, 'uses Bun'],
  [/\bDeno\s*\./, 'uses Deno'],
];

/** Strips comments so that prose mentioning Buffer or process does not trip the check. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

describe('core/ stays runtime-free', () => {
  const files = listFiles(join(root, 'core'), '.ts');

  it('has files to check', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it.each(files.map((f) => [relative(root, f), f]))('%s uses no runtime API', (_name, file) => {
    const text = code(readFileSync(file, 'utf8'));
    const found = FORBIDDEN.filter(([pattern]) => pattern.test(text)).map(([, why]) => why);
    expect(found).toEqual([]);
  });

  it('the checker itself catches a violation', () => {
    const sample = code("import { readFile } from 'node:fs';\nconst b = Buffer.from('x');");
    expect(FORBIDDEN.filter(([p]) => p.test(sample)).length).toBeGreaterThanOrEqual(2);
  });
});
