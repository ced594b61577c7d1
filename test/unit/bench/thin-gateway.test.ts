import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gatewayConfig } from '../../../bench/lib/gateway-config.ts';
import { readThinConfig, readThinUsage } from '../../../bench/lib/thin-gateway.ts';

const config = JSON.stringify(gatewayConfig(18080, 'memory'));
const read = (argv: string[], env: Record<string, string> = {}) => readThinConfig(argv, env, (path) => {
  expect(path).toBe('/cfg.json');
  return config;
});

describe('the thin gateways', () => {
  it('serve the Anthropic models of the benchmark configuration, by plain and prefixed name', () => {
    const { keys, routes } = read(['node', 'thin', '--config', '/cfg.json']);
    expect([...keys]).toEqual([['sy-bench-key-0123456789abcdef', 'bench']]);
    const route = routes.get('bench.claude-sse')!;
    expect(route).toBe(routes.get('claude-sse'));
    expect(route).toMatchObject({ model: 'claude-sse', url: 'http://127.0.0.1:18080/anthropic-sse/v1/messages', origin: 'http://127.0.0.1:18080', path: '/anthropic-sse/v1/messages', apiKey: 'sk-ant-bench' });
    // OpenAI-compatible and Gemini models are not theirs.
    expect(routes.has('bench.oss-json')).toBe(false);
    expect(routes.has('bench.gemini-sse')).toBe(false);
    expect(() => read(['node', 'thin'])).toThrow(/--config PATH/);
    // SWITCHYARD_CONFIG, as for the gateway, when no --config is given.
    expect(read(['node', 'thin'], { SWITCHYARD_CONFIG: '/cfg.json' }).routes.has('claude-json')).toBe(true);
  });

  it("splice the upstream model into the benchmark's bodies, leaving every other byte", () => {
    const { routes } = read(['--config', '/cfg.json']);
    for (const file of ['claude-anthropic-json.json', 'claude-anthropic-sse.json']) {
      const text = readFileSync(new URL(`../../../bench/bodies/${file}`, import.meta.url), 'utf8');
      const body = JSON.parse(text) as { model: string };
      const spliced = routes.get(body.model)!.splice(text, body.model);
      expect(JSON.parse(spliced)).toEqual({ ...body, model: 'claude-sonnet-4-5-20250929' });
      expect(spliced.replace('"claude-sonnet-4-5-20250929"', JSON.stringify(body.model))).toBe(text);
    }
  });

  it("read the usage of the benchmark's answers as Switchyard's tap does", () => {
    const json = readFileSync(new URL('../../../bench/upstream/anthropic-message.json', import.meta.url), 'utf8');
    const usage = (JSON.parse(json) as { usage: { input_tokens: number; output_tokens: number } }).usage;
    expect(readThinUsage(json)).toEqual({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
    const sse = readFileSync(new URL('../../../bench/upstream/anthropic-stream.sse', import.meta.url), 'utf8');
    // message_start's output count is 1; message_delta's cumulative count is the answer's.
    const last = [...sse.matchAll(/"output_tokens":(\d+)/g)].at(-1)![1];
    expect(readThinUsage(sse).outputTokens).toBe(Number(last));
    expect(readThinUsage(sse).inputTokens).toBeGreaterThan(0);
    expect(readThinUsage('no usage here')).toEqual({ inputTokens: 0, outputTokens: 0 });
  });
});
