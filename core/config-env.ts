import { ConfigError } from './config.ts';

const PATTERN = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces `${NAME}` (and `${NAME:-fallback}`) in every string of a parsed JSON document.
 * A variable that is unset and has no fallback stops start-up, naming where it was used.
 */
export function interpolateEnv(doc: unknown, env: Record<string, string | undefined>, path = ''): unknown {
  if (typeof doc === 'string') {
    return doc.replace(PATTERN, (_match, name: string, fallback: string | undefined) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      if (fallback !== undefined) return fallback;
      throw new ConfigError(`invalid configuration:\n  ${path || '(root)'}: environment variable ${name} is not set`);
    });
  }
  if (Array.isArray(doc)) return doc.map((item, i) => interpolateEnv(item, env, join(path, String(i))));
  if (doc !== null && typeof doc === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(doc)) out[key] = interpolateEnv(value, env, join(path, key));
    return out;
  }
  return doc;
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}
