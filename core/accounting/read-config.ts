import * as v from 'valibot';
import { interpolateEnv } from '../config-env.ts';
import { ConfigError } from '../config.ts';
import { AccountingConfig, AccountingConfigEntries } from './config.ts';

const FIELDS = Object.keys(AccountingConfigEntries);

/**
 * Reads only the accounting fields of a configuration document, so that tools such as the CLI
 * need none of the providers' environment variables.
 */
export function readAccountingConfig(doc: unknown, env: Record<string, string | undefined> = {}): AccountingConfig {
  const source = (doc && typeof doc === 'object' ? doc : {}) as Record<string, unknown>;
  const picked: Record<string, unknown> = {};
  for (const field of FIELDS) if (field in source) picked[field] = source[field];
  const result = v.safeParse(AccountingConfig, interpolateEnv(picked, env));
  if (!result.success) {
    const lines = result.issues.map((issue) => `  ${v.getDotPath(issue) ?? '(root)'}: ${issue.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.output;
}
