/**
 * Every relative link in the project's Markdown resolves: the file exists and, where the link
 * names an anchor, that file has it (an explicit `<a id>` or a heading's GitHub slug). The
 * README and the rounds' notes link into each other by anchor, and moving a paragraph between
 * them is how those links break.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readAnchors, readLinks } from './markdown.ts';
import { listFiles } from '../../helpers/list-files.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Folders that hold no Markdown of the project's own (installs, builds, results, scratch). */
const SKIPPED = new Set(['node_modules', '.git', 'dist', 'results', '.tmp']);

/** Every Markdown file in the repository, so that a new one is checked without being listed. */
const FILES = listFiles(ROOT, '.md', SKIPPED).map((path) => relative(ROOT, path)).sort();

describe('reading Markdown', () => {
  it('gives headings their GitHub anchors, repeats numbered, and explicit ids', () => {
    const anchors = readAnchors('## A/B of two builds (`npm run bench:ab`)\n### Notes\n### Notes\n<a id="the-run"></a>**The run**\n```\n# not a heading\n```\n');
    expect([...anchors].sort()).toEqual(['ab-of-two-builds-npm-run-benchab', 'notes', 'notes-1', 'the-run']);
  });

  it('finds links outside code only, with their lines', () => {
    const links = readLinks('see [a](x.md#b) and `[c](not-a-link)`\n```\n[d](nor-this)\n```\n[e](../y.md "title")\n');
    expect(links).toEqual([{ target: 'x.md#b', line: 1 }, { target: '../y.md', line: 5 }]);
  });
});

describe('Markdown links', () => {
  it('finds the project\'s Markdown', () => {
    expect(FILES).toEqual(expect.arrayContaining(['README.md', 'bench/README.md', 'deploy/README.md', 'docs/performance-rounds.md']));
  });

  const anchorsOf = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let found = anchorsOf.get(path);
    if (!found) anchorsOf.set(path, (found = readAnchors(readFileSync(path, 'utf8'))));
    return found;
  };

  for (const file of FILES) {
    it(`${file}: every relative link and anchor resolves`, () => {
      const from = join(ROOT, file);
      const broken: string[] = [];
      for (const { target, line } of readLinks(readFileSync(from, 'utf8'))) {
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#', 2) as [string, string | undefined];
        const to = path ? resolve(dirname(from), decodeURIComponent(path)) : from;
        if (!existsSync(to)) broken.push(`${file}:${line}: ${target} (no such file)`);
        else if (anchor !== undefined && to.endsWith('.md') && !anchors(to).has(anchor)) {
          broken.push(`${file}:${line}: ${target} (no anchor "${anchor}" in ${relative(ROOT, to)})`);
        }
      }
      expect(broken).toEqual([]);
    });
  }
});
