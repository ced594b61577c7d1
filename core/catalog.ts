import type { GatewayConfig, ModelConfig, ProviderConfig } from './config.ts';
import { GatewayError } from './errors.ts';

export interface RouteTarget {
  /** Provider name from the configuration. */
  provider: string;
  config: ProviderConfig;
  /** The model id the upstream knows. */
  upstreamModel: string;
}

export interface CatalogModel {
  id: string;
  created: number;
  routes: RouteTarget[];
}

/** Model lookup built once at start-up; every request resolves through plain Map reads. */
export interface Catalog {
  readonly models: readonly CatalogModel[];
  /** Accepts `{prefix}.{id}`, a bare id, an alias, and either with a leading `models/`. */
  resolve(name: string): CatalogModel;
  find(name: string): CatalogModel | undefined;
}

export function createCatalog(config: GatewayConfig, now: number): Catalog {
  const byName = new Map<string, CatalogModel>();
  const models = config.models.map((m: ModelConfig): CatalogModel => {
    const model: CatalogModel = {
      id: m.id,
      created: m.created ?? config.created ?? now,
      routes: m.routes.map((r) => ({ provider: r.provider, config: config.providers[r.provider]!, upstreamModel: r.model })),
    };
    for (const name of [m.id, ...m.aliases]) byName.set(name, model);
    return model;
  });
  const prefix = config.prefix ? `${config.prefix}.` : '';

  const find = (raw: string): CatalogModel | undefined => {
    const name = raw.startsWith('models/') ? raw.slice(7) : raw;
    return byName.get(name) ?? (prefix && name.startsWith(prefix) ? byName.get(name.slice(prefix.length)) : undefined);
  };
  return {
    models,
    find,
    resolve(name) {
      const model = find(name);
      if (!model) throw new GatewayError('not_found', `Model "${name}" does not exist or is not served here`, { param: 'model' });
      return model;
    },
  };
}
