import * as v from 'valibot';
import { AccountingConfigEntries } from './accounting/config.ts';
import { interpolateEnv } from './config-env.ts';

const Segment = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z0-9_-]+$/, 'must be a single path segment of letters, digits, "_" or "-"'),
);
const Url = v.pipe(v.string(), v.url('must be an absolute URL'));
const NonEmpty = v.pipe(v.string(), v.minLength(1, 'must not be empty'));
const Headers = v.optional(v.record(v.string(), v.string()));
const TimeoutMs = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)));

const AnthropicProvider = v.strictObject({
  type: v.literal('anthropic'),
  baseUrl: v.optional(Url, 'https://api.anthropic.com'),
  apiKey: NonEmpty,
  /** `anthropic-version` sent upstream when translating; same-family calls forward the client's. */
  version: v.optional(v.picklist(['2023-06-01', '2026-10-21']), '2023-06-01'),
  headers: Headers,
  timeoutMs: TimeoutMs,
});

const OpenAIProvider = v.strictObject({
  type: v.literal('openai'),
  baseUrl: v.optional(Url, 'https://api.openai.com/v1'),
  apiKey: v.optional(v.string(), ''),
  /** Where this host puts reasoning text in responses and (if `replayReasoning`) accepts it back. */
  reasoningField: v.optional(v.picklist(['reasoning_content', 'reasoning']), 'reasoning_content'),
  /** Send earlier reasoning back on assistant turns (DeepSeek needs it; Groq rejects it). */
  replayReasoning: v.optional(v.boolean(), false),
  maxTokensField: v.optional(v.picklist(['max_completion_tokens', 'max_tokens']), 'max_tokens'),
  /** Whether the host accepts `file` parts (PDFs); without it a document is a 400, never a silent drop. */
  supportsFiles: v.optional(v.boolean(), false),
  headers: Headers,
  timeoutMs: TimeoutMs,
});

const GeminiProvider = v.strictObject({
  type: v.literal('gemini'),
  baseUrl: v.optional(Url, 'https://generativelanguage.googleapis.com'),
  apiKey: NonEmpty,
  apiVersion: v.optional(v.picklist(['v1beta', 'v1', 'v1alpha']), 'v1beta'),
  headers: Headers,
  timeoutMs: TimeoutMs,
});

const BedrockProvider = v.strictObject({
  type: v.literal('bedrock'),
  region: v.pipe(v.string(), v.regex(/^[a-z0-9-]+$/, 'must be an AWS region such as us-east-1')),
  /** Defaults to https://bedrock-runtime.{region}.amazonaws.com. */
  baseUrl: v.optional(Url),
  accessKeyId: v.optional(v.string()),
  secretAccessKey: v.optional(v.string()),
  sessionToken: v.optional(v.string()),
  /** A Bedrock API key (sent as a bearer token) instead of SigV4 credentials. */
  apiKey: v.optional(v.string()),
  headers: Headers,
  timeoutMs: TimeoutMs,
});

const Provider = v.variant('type', [AnthropicProvider, OpenAIProvider, GeminiProvider, BedrockProvider]);

/** What a browser sends as `origin`: scheme, host and port, nothing after. */
const CorsOrigin = v.pipe(v.string(), v.regex(/^(\*|[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s]+)$/, 'must be "*" or an origin such as "https://app.example" (no path, no trailing "/")'));

const Route = v.strictObject({ provider: NonEmpty, model: NonEmpty });

const Model = v.strictObject({
  id: v.pipe(v.string(), v.regex(/^[^\s/:]+$/, 'must not contain spaces, "/" or ":"')),
  created: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
  /** Other names clients may use for this model (e.g. Claude Code's small-model name). */
  aliases: v.optional(v.array(NonEmpty), []),
  routes: v.pipe(v.array(Route), v.minLength(1, 'needs at least one route')),
});

const Key = v.pipe(
  v.strictObject({
    id: NonEmpty,
    key: v.optional(v.pipe(v.string(), v.minLength(8, 'must be at least 8 characters'))),
    sha256: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits'))),
    /** Model ids this key may use; all when absent. */
    models: v.optional(v.array(NonEmpty)),
  }),
  v.check((k) => (k.key === undefined) !== (k.sha256 === undefined), 'needs exactly one of "key" or "sha256"'),
);

export const GatewayConfig = v.pipe(
  v.strictObject({
    $schema: v.optional(v.string()),
    prefix: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]*$/, 'must be letters, digits, "_" or "-"')), ''),
    owner: v.optional(NonEmpty, 'switchyard'),
    /** Mounts every route under this path (e.g. "/llm" when embedded in another app). */
    basePath: v.optional(v.pipe(v.string(), v.regex(/^(\/[A-Za-z0-9._~-]+)*$/, 'must be empty or start with "/" and not end with "/"')), ''),
    segments: v.optional(
      v.strictObject({
        list: v.optional(Segment, 'openai'),
        generate: v.optional(Segment, 'gemini'),
        messages: v.optional(Segment, 'anthropic'),
      }),
      {},
    ),
    keys: v.optional(v.array(Key), []),
    providers: v.record(v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]+$/, 'provider names are letters, digits, "_", "." or "-"')), Provider),
    models: v.array(Model),
    limits: v.optional(
      v.strictObject({
        /** Largest accepted request body; enforced while reading. */
        maxBodyBytes: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 32 * 1024 * 1024),
        /** Upstream time-out per attempt unless the provider sets its own. */
        upstreamTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 600_000),
      }),
      {},
    ),
    cors: v.optional(
      v.strictObject({
        /** Browser origins whose pages may call the API families; `*` for any, `[]` for none. */
        origins: v.optional(v.array(CorsOrigin), ['*']),
      }),
      {},
    ),
    /** Seconds since epoch used as `created` for models that give none. */
    created: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
    ...AccountingConfigEntries,
  }),
  v.check((c) => new Set(Object.values(c.segments)).size === Object.values(c.segments).length, 'segments must be distinct'),
);

export type GatewayConfig = v.InferOutput<typeof GatewayConfig>;
export type GatewayConfigInput = v.InferInput<typeof GatewayConfig>;
export type ProviderConfig = GatewayConfig['providers'][string];
export type ModelConfig = GatewayConfig['models'][number];
export type KeyConfig = GatewayConfig['keys'][number];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Validates a parsed configuration document after `${ENV}` interpolation.
 * Throws ConfigError whose message names every offending path.
 */
export function readConfig(doc: unknown, env: Record<string, string | undefined> = {}): GatewayConfig {
  const interpolated = interpolateEnv(doc, env);
  const result = v.safeParse(GatewayConfig, interpolated);
  if (!result.success) {
    const lines = result.issues.map((issue) => `  ${v.getDotPath(issue) ?? '(root)'}: ${describeIssue(issue)}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  checkReferences(result.output);
  return result.output;
}

function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (issue.type === 'strict_object' && issue.kind === 'schema') return `unknown field (${issue.received})`;
  if (issue.type === 'variant' && v.getDotPath(issue)?.startsWith('providers.')) return `must be one of "anthropic", "openai", "gemini", "bedrock" (got ${issue.received})`;
  return issue.message;
}

function checkReferences(config: GatewayConfig): void {
  const problems: string[] = [];
  const names = new Map<string, string>();
  config.models.forEach((model, i) => {
    for (const name of [model.id, ...model.aliases]) {
      const seen = names.get(name);
      if (seen) problems.push(`  models.${i}: name "${name}" is already used by ${seen}`);
      else names.set(name, `models.${i}`);
    }
    model.routes.forEach((route, j) => {
      if (!(route.provider in config.providers)) {
        problems.push(`  models.${i}.routes.${j}.provider: no provider named "${route.provider}"`);
      }
    });
  });
  const keyIds = new Set<string>();
  config.keys.forEach((key, i) => {
    if (keyIds.has(key.id)) problems.push(`  keys.${i}.id: duplicate key id "${key.id}"`);
    keyIds.add(key.id);
    key.models?.forEach((m, j) => {
      if (!names.has(m)) problems.push(`  keys.${i}.models.${j}: no model named "${m}"`);
    });
  });
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}
