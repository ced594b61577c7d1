import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, readConfig } from '../../../core/config.ts';

const fixture = (name: string) => JSON.parse(readFileSync(fileURLToPath(new URL(`../../fixtures/config/${name}`, import.meta.url)), 'utf8'));
const env = { SWITCHYARD_KEY: 'sk-abcdefgh', ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g', GROQ_API_KEY: 'q', AWS_ACCESS_KEY_ID: 'AKIA', AWS_SECRET_ACCESS_KEY: 's' };

function errorOf(doc: unknown, vars: Record<string, string> = env): string {
  try {
    readConfig(doc, vars);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected the configuration to be refused');
}

describe('readConfig', () => {
  it('accepts the SPEC example and fills defaults', () => {
    const config = readConfig(fixture('spec-example.json'), env);
    expect(config.prefix).toBe('acme');
    expect(config.segments).toEqual({ list: 'openai', generate: 'gemini', messages: 'anthropic' });
    expect(config.keys[0]).toEqual({ id: 'ci', key: 'sk-abcdefgh' });
    expect(config.providers.claude).toMatchObject({ type: 'anthropic', apiKey: 'a', baseUrl: 'https://api.anthropic.com' });
    expect(config.providers.oss).toMatchObject({ type: 'openai', reasoningField: 'reasoning_content', replayReasoning: false });
    expect(config.limits).toEqual({ maxBodyBytes: 32 * 1024 * 1024, upstreamTimeoutMs: 600_000 });
    expect(config.models.map((m) => m.id)).toEqual(['claude-sonnet-4-5-20250929-v1', 'gpt-oss-120b', 'gemini-2.5-flash']);
  });

  it('interpolates ${NAME} inside strings and supports ${NAME:-fallback}', () => {
    const config = readConfig(
      { providers: { p: { type: 'openai', baseUrl: 'http://${HOST}:${PORT:-8080}/v1' } }, models: [] },
      { HOST: '127.0.0.1' },
    );
    expect(config.providers.p).toMatchObject({ baseUrl: 'http://127.0.0.1:8080/v1' });
  });

  it.each([
    ['unknown provider type', 'bad-provider-type.json', 'providers.x.type: must be one of "anthropic", "openai", "gemini", "bedrock" (got "azure")'],
    ['route to a missing provider', 'bad-route.json', 'models.0.routes.0.provider: no provider named "nope"'],
    ['key with neither key nor sha256', 'bad-key.json', 'keys.0: needs exactly one of "key" or "sha256"'],
    ['sha256 that is not hex', 'bad-sha.json', 'keys.0.sha256: must be 64 hex digits'],
    ['segment with a slash', 'bad-segment.json', 'segments.list: must be a single path segment'],
    ['unknown field', 'bad-unknown-field.json', 'providers.claude.apikey: unknown field'],
    ['duplicate model id', 'bad-duplicate-model.json', 'models.1: name "m" is already used by models.0'],
    ['missing models', 'bad-missing-models.json', 'models:'],
  ])('refuses %s, naming the path', (_what, file, expected) => {
    expect(errorOf(fixture(file))).toContain(expected);
  });

  it('names the path of an unset environment variable', () => {
    expect(errorOf(fixture('spec-example.json'), { ...env, GROQ_API_KEY: '' })).toContain('providers.oss.apiKey: environment variable GROQ_API_KEY is not set');
  });
});
