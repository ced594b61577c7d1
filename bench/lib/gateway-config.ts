import type { GatewayConfigInput } from '../../core/index.ts';

export const BENCH_KEY = 'sy-bench-key-0123456789abcdef';
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

/**
 * The gateway under test: one static key, usage accounting in memory, the admin API (to read
 * the usage records back after the run), and one provider per canned answer so the model name
 * picks JSON or SSE, passthrough or translation; `https` for nginx's TLS port.
 */
export function gatewayConfig(nginxPort: number, storage: 'memory' | { sqlite: string }, scheme: 'http' | 'https' = 'http'): GatewayConfigInput {
  const base = `${scheme}://127.0.0.1:${nginxPort}`;
  const anthropic = (path: string) => ({ type: 'anthropic' as const, baseUrl: `${base}/${path}`, apiKey: 'sk-ant-bench' });
  const openai = (path: string) => ({ type: 'openai' as const, baseUrl: `${base}/${path}/v1`, apiKey: 'sk-bench', reasoningField: 'reasoning' as const });
  const gemini = (path: string) => ({ type: 'gemini' as const, baseUrl: `${base}/${path}`, apiKey: 'bench-gemini-key' });
  const model = (id: string, provider: string, upstream: string) => ({ id, created: 1750000000, routes: [{ provider, model: upstream }] });
  return {
    prefix: 'bench',
    owner: 'bench',
    keys: [{ id: 'bench', key: BENCH_KEY }],
    admin: { token: ADMIN_TOKEN },
    storage: storage === 'memory' ? { kind: 'memory' } : { kind: 'sqlite', path: storage.sqlite },
    providers: {
      'anthropic-json': anthropic('anthropic-json'),
      'anthropic-sse': anthropic('anthropic-sse'),
      'anthropic-drip': anthropic('drip/anthropic'),
      'openai-json': openai('openai-json'),
      'openai-sse': openai('openai-sse'),
      'openai-drip': openai('drip/openai'),
      'gemini-sse': gemini('gemini-sse'),
      'gemini-drip': gemini('drip/gemini'),
    },
    models: [
      model('claude-json', 'anthropic-json', 'claude-sonnet-4-5-20250929'),
      model('claude-sse', 'anthropic-sse', 'claude-sonnet-4-5-20250929'),
      model('claude-drip', 'anthropic-drip', 'claude-sonnet-4-5-20250929'),
      model('oss-json', 'openai-json', 'openai/gpt-oss-120b'),
      model('oss-sse', 'openai-sse', 'openai/gpt-oss-120b'),
      model('oss-drip', 'openai-drip', 'openai/gpt-oss-120b'),
      model('gemini-sse', 'gemini-sse', 'gemini-2.5-flash'),
      model('gemini-drip', 'gemini-drip', 'gemini-2.5-flash'),
    ],
  };
}
