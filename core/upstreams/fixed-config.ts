/**
 * What a provider's configuration fixes for every call: its base URL without trailing slashes and
 * the operator's extra headers with lower-cased names. Worked out on a provider's first call
 * instead of on each, keyed by the configuration object (not changed after start-up).
 */
export interface FixedConfig {
  /** Empty for a provider without a base URL (Bedrock builds its URL from the region). */
  base: string;
  headers: ReadonlyArray<readonly [string, string]>;
}

interface ProviderLike {
  baseUrl?: string | undefined;
  headers?: Record<string, string> | undefined;
}

const fixedOf = new WeakMap<ProviderLike, FixedConfig>();

export function readFixedConfig(config: ProviderLike): FixedConfig {
  let fixed = fixedOf.get(config);
  if (!fixed) {
    fixed = {
      base: (config.baseUrl ?? '').replace(/\/+$/, ''),
      headers: Object.entries(config.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value] as const),
    };
    fixedOf.set(config, fixed);
  }
  return fixed;
}
