import type { GatewayConfigInput } from './config.ts';

type Env = Record<string, string | undefined>;
type Provider = GatewayConfigInput['providers'][string];
type Model = GatewayConfigInput['models'][number];

/**
 * The configuration `npm start` uses when no file is given: one provider per credential found in
 * the usual environment variables, a small model catalogue for each, and one key.
 */
export function buildDefaultConfig(env: Env, key: string): GatewayConfigInput {
  const providers: Record<string, Provider> = {};
  const models: Model[] = [];
  const add = (id: string, provider: string, model: string) => {
    const existing = models.find((m) => m.id === id);
    if (existing) existing.routes.push({ provider, model });
    else models.push({ id, routes: [{ provider, model }] });
  };

  if (env.ANTHROPIC_API_KEY) {
    providers.anthropic = { type: 'anthropic', apiKey: env.ANTHROPIC_API_KEY, ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}) };
    add('claude-opus-4-6', 'anthropic', 'claude-opus-4-6');
    add('claude-sonnet-4-6', 'anthropic', 'claude-sonnet-4-6');
    add('claude-sonnet-4-5-20250929-v1', 'anthropic', 'claude-sonnet-4-5-20250929');
    add('claude-haiku-4-5-20251001', 'anthropic', 'claude-haiku-4-5-20251001');
  }
  const geminiKey = env.GEMINI_API_KEY || env.GOOGLE_API_KEY;
  if (geminiKey) {
    providers.gemini = { type: 'gemini', apiKey: geminiKey, ...(env.GEMINI_BASE_URL ? { baseUrl: env.GEMINI_BASE_URL } : {}) };
    add('gemini-2.5-pro', 'gemini', 'gemini-2.5-pro');
    add('gemini-2.5-flash', 'gemini', 'gemini-2.5-flash');
    add('gemini-2.5-flash-lite', 'gemini', 'gemini-2.5-flash-lite');
  }
  if (env.GROQ_API_KEY) {
    providers.groq = { type: 'openai', baseUrl: 'https://api.groq.com/openai/v1', apiKey: env.GROQ_API_KEY, reasoningField: 'reasoning' };
    add('gpt-oss-120b', 'groq', 'openai/gpt-oss-120b');
    add('gpt-oss-20b', 'groq', 'openai/gpt-oss-20b');
  }
  if (env.OPENAI_BASE_URL) {
    // Any OpenAI-compatible host (vLLM, SGLang, llama.cpp, OpenRouter…); OPENAI_MODELS names what it serves.
    providers.openai = { type: 'openai', baseUrl: env.OPENAI_BASE_URL, apiKey: env.OPENAI_API_KEY ?? '' };
    const served = (env.OPENAI_MODELS ?? 'gpt-oss-120b,gpt-oss-20b').split(',').map((s) => s.trim()).filter(Boolean);
    for (const name of served) add(name.slice(name.lastIndexOf('/') + 1), 'openai', name);
  }
  const awsKeys = env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY;
  if (awsKeys || env.AWS_BEARER_TOKEN_BEDROCK) {
    providers.bedrock = {
      type: 'bedrock',
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1',
      ...(awsKeys
        ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, ...(env.AWS_SESSION_TOKEN ? { sessionToken: env.AWS_SESSION_TOKEN } : {}) }
        : { apiKey: env.AWS_BEARER_TOKEN_BEDROCK }),
    };
    add('claude-sonnet-4-5-20250929-v1', 'bedrock', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0');
    add('claude-haiku-4-5-20251001', 'bedrock', 'us.anthropic.claude-haiku-4-5-20251001-v1:0');
    add('gpt-oss-120b', 'bedrock', 'openai.gpt-oss-120b-1:0');
    add('gpt-oss-20b', 'bedrock', 'openai.gpt-oss-20b-1:0');
  }
  return {
    prefix: env.SWITCHYARD_PREFIX ?? 'switchyard',
    owner: env.SWITCHYARD_OWNER ?? 'switchyard',
    keys: [{ id: 'default', key }],
    providers,
    models,
  };
}
