import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { largeAnthropicBody } from '../../../bench/lib/large-body.ts';
import { requestBody } from '../../../bench/lib/request.ts';
import { parseArgs } from '../../../bench/lib/args.ts';
import { pickScenarios, SCENARIOS } from '../../../bench/lib/scenarios.ts';

const file = join(import.meta.dirname, '../../../bench/bodies/claude-large.json');

describe('the benchmark’s 100K-token prompt', () => {
  it('is what its generator writes, so it can be made again (`largeAnthropicBody`)', () => {
    expect(readFileSync(file, 'utf8')).toBe(largeAnthropicBody('bench.claude-sse', true));
  });

  it('is a ~400 KB Claude-style request with non-ASCII text, naming its model first (the wrk scripts replace it there)', () => {
    const text = readFileSync(file, 'utf8');
    expect(Buffer.byteLength(text)).toBeGreaterThan(390_000);
    expect(Buffer.byteLength(text)).toBeLessThan(420_000);
    expect(text.length).toBeLessThan(Buffer.byteLength(text));
    expect(text.startsWith('{"model":"bench.claude-sse",')).toBe(true);
    const body = JSON.parse(text) as { messages: Array<{ role: string }>; tools: unknown[]; stream: boolean };
    expect(body.tools).toHaveLength(20);
    expect(body.messages.at(-1)!.role).toBe('user');
    expect(body.stream).toBe(true);
  });

  it('is sent with each large scenario’s own model', () => {
    for (const scenario of SCENARIOS.filter((s) => s.large)) {
      const body = JSON.parse(requestBody(scenario)!) as { model: string };
      expect(body.model).toBe(scenario.bodyModel);
      expect(readFileSync(join(import.meta.dirname, `../../../bench/wrk/${scenario.name}.lua`), 'utf8')).toContain(`'${scenario.bodyModel}'`);
    }
  });
});

describe('picking the large-prompt scenarios', () => {
  const large = ['claude-anthropic-large', 'claude-openai-large'];
  it('leaves them out of a default run, adds them with --large, and runs them when named', () => {
    expect(pickScenarios(undefined).map((s) => s.name)).not.toContain(large[0]);
    expect(pickScenarios(undefined).length).toBe(SCENARIOS.length - 2);
    expect(pickScenarios(undefined, parseArgs(['--large']).large).map((s) => s.name).slice(-2)).toEqual(large);
    expect(pickScenarios(['claude-openai-large']).map((s) => s.name)).toEqual(['claude-openai-large']);
    expect(pickScenarios(['claude-openai-large'], true).map((s) => s.name)).toEqual(['claude-openai-large', 'claude-anthropic-large']);
  });
});
