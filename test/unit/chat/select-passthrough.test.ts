import { describe, expect, it } from 'vitest';
import type { CatalogModel, RouteTarget } from '../../../core/catalog.ts';
import type { RequestContext } from '../../../core/context.ts';
import { readsObjectFirst } from '../../../core/chat/select-passthrough.ts';
import type { Upstream } from '../../../core/upstreams/types.ts';

const anthropic = { kind: 'anthropic', passthrough: { family: 'anthropic' } } as unknown as Upstream;
const picky = { kind: 'bedrock', passthrough: { family: 'anthropic', accepts: (t: RouteTarget) => t.upstreamModel.startsWith('anthropic.') } } as unknown as Upstream;
const rebuilds = { kind: 'bedrock', passthrough: { family: 'anthropic', readsObject: true } } as unknown as Upstream;
const openai = { kind: 'openai' } as unknown as Upstream;
const ctx = { services: { upstreams: new Map([['claude', anthropic], ['bedrock', picky], ['oss', openai], ['rebuilds', rebuilds]]) } } as unknown as RequestContext;
const model = (...routes: Array<[string, string]>) => ({ id: 'm', routes: routes.map(([provider, upstreamModel]) => ({ provider, upstreamModel })) }) as unknown as CatalogModel;

describe('readsObjectFirst', () => {
  it('is true only when the first route cannot take the family’s body as it is, or rebuilds it', () => {
    expect(readsObjectFirst(ctx, model(['oss', 'gpt-oss'], ['claude', 'c']), 'anthropic')).toBe(true);
    expect(readsObjectFirst(ctx, model(['claude', 'c'], ['oss', 'gpt-oss']), 'anthropic')).toBe(false);
    expect(readsObjectFirst(ctx, model(['claude', 'c']), 'gemini')).toBe(true);
    expect(readsObjectFirst(ctx, model(['bedrock', 'anthropic.claude']), 'anthropic')).toBe(false);
    expect(readsObjectFirst(ctx, model(['bedrock', 'meta.llama']), 'anthropic')).toBe(true);
    expect(readsObjectFirst(ctx, model(['rebuilds', 'anthropic.claude']), 'anthropic')).toBe(true);
  });

  it('is false where nothing is known: no model, no route', () => {
    expect(readsObjectFirst(ctx, undefined, 'anthropic')).toBe(false);
    expect(readsObjectFirst(ctx, model(), 'anthropic')).toBe(false);
  });
});
