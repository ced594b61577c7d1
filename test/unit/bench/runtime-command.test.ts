import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runtimeCommand } from '../../../bench/lib/servers.ts';

const startFlags = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').slice(1, -1);

describe('runtimeCommand (bench)', () => {
  it('runs a Node build with npm start’s flags, then the entry and its arguments', () => {
    const [bin, args] = runtimeCommand('node', 'dist/x.mjs', ['--config', 'c.json']);
    expect(bin).toBe(process.execPath);
    expect(args).toEqual([...startFlags, 'dist/x.mjs', '--config', 'c.json']);
  });

  it('puts extra Node flags after npm start’s, so a later value of the same flag wins (bench:ab --b-flags)', () => {
    const [, args] = runtimeCommand('node', 'dist/x.mjs', ['--config', 'c.json'], ['--max-semi-space-size=16', '--trace-gc']);
    const semi = args.map((arg, i) => (arg.startsWith('--max-semi-space-size=') ? i : -1)).filter((i) => i >= 0);
    expect(semi.length).toBe(2);
    expect(args[semi[1]!]).toBe('--max-semi-space-size=16');
    expect(args.slice(-4)).toEqual(['--trace-gc', 'dist/x.mjs', '--config', 'c.json']);
  });
});
