import type { IRequestStrict, RouterType } from 'itty-router';
import * as v from 'valibot';
import type { KeyStore, UsageQuery, UsageStore } from '../accounting/types.ts';
import type { RequestContext } from '../context.ts';
import { GatewayError } from '../errors.ts';
import { readBodyBytes } from '../http/read-body.ts';
import { jsonReply } from '../http/respond.ts';
import { sha256Hex } from '../http/sha256.ts';
import { parseWith } from '../validate.ts';
import { readDuration, readTime, viewKey } from './key-view.ts';

type Router = RouterType<IRequestStrict, [RequestContext]>;

export interface AdminDeps {
  keys: KeyStore;
  usage: UsageStore;
  /** The configured admin credential; without one every admin route answers 404. */
  admin?: { token?: string; sha256?: string };
  /** Grace period of a rotated secret when the request names none. */
  rotateGraceSeconds?: number;
  now?: () => number;
}

const PositiveInt = v.pipe(v.number(), v.integer(), v.minValue(1));
const CreateKeyBody = v.strictObject({
  name: v.pipe(v.string(), v.trim(), v.minLength(1, 'must not be empty'), v.maxLength(200)),
  models: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  /** ISO 8601 or Unix seconds. */
  expiresAt: v.optional(v.union([v.string(), v.number()])),
  /** A duration from now such as "30d" (instead of expiresAt). */
  expiresIn: v.optional(v.string()),
  rpm: v.optional(PositiveInt),
  tpm: v.optional(PositiveInt),
  budgetUsd: v.optional(v.pipe(v.number(), v.minValue(0))),
});
const RotateBody = v.strictObject({ graceSeconds: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))) });
const decoder = new TextDecoder();

/**
 * The admin API under `base` (the caller passes `${basePath}/admin/v1`): keys CRUD, rotate and
 * usage summaries. It takes only the admin token (compared by sha256); user keys never pass.
 */
export function registerAdminRoutes(router: Router, base: string, deps: AdminDeps): void {
  const now = deps.now ?? (() => Date.now());
  const expected = deps.admin ? (deps.admin.sha256 ? Promise.resolve(deps.admin.sha256.toLowerCase()) : sha256Hex(deps.admin.token!)) : undefined;

  const guard = async (req: IRequestStrict, ctx: RequestContext): Promise<undefined> => {
    if (!expected) throw new GatewayError('not_found', `No route for ${ctx.path} (the admin API needs "admin" in the configuration)`);
    const auth = /^Bearer\s+(.+)$/i.exec(req.headers.get('authorization') ?? '');
    const presented = auth?.[1]?.trim() ?? req.headers.get('x-api-key')?.trim();
    if (!presented) throw new GatewayError('authentication', 'Missing admin token: send it as "Authorization: Bearer <token>"');
    if (!sameHex(await sha256Hex(presented), await expected)) throw new GatewayError('authentication', 'Invalid admin token');
    ctx.key = { id: '(admin)' };
    return undefined;
  };

  async function found(id: string) {
    const key = await deps.keys.get(id);
    if (!key) throw new GatewayError('not_found', `No key with id "${id}"`, { param: 'id' });
    return key;
  }

  router.get(`${base}/keys`, guard, async (_req, ctx) => {
    const t = now();
    return jsonReply(ctx, { data: (await deps.keys.list()).map((k) => viewKey(k, t)) });
  });

  router.post(`${base}/keys`, guard, async (req, ctx) => {
    const body = parseWith(CreateKeyBody, await readBody(req, ctx));
    const models = body.models?.map((name, i) => {
      const model = ctx.services.catalog.find(name);
      if (!model) throw new GatewayError('invalid_request', `models.${i}: no model named "${name}"`, { param: `models.${i}` });
      return model.id;
    });
    const { record, secret } = await deps.keys.create({
      name: body.name,
      ...(models && { models }),
      ...(body.rpm !== undefined && { rpm: body.rpm }),
      ...(body.tpm !== undefined && { tpm: body.tpm }),
      ...(body.budgetUsd !== undefined && { budgetUsd: body.budgetUsd }),
      ...readExpiry(body, now()),
    });
    return jsonReply(ctx, { key: viewKey(record, now()), secret }, 201);
  });

  router.get(`${base}/keys/:id`, guard, async (req, ctx) => {
    const key = await found(req.params.id!);
    const [spent] = await deps.usage.summarize({ by: 'key', keyId: key.id });
    return jsonReply(ctx, { key: viewKey(key, now()), usage: spent ?? null });
  });

  const revoke = async (req: IRequestStrict, ctx: RequestContext) => {
    const key = await deps.keys.revoke(req.params.id!);
    if (!key) throw new GatewayError('not_found', `No key with id "${req.params.id}"`, { param: 'id' });
    return jsonReply(ctx, { key: viewKey(key, now()) });
  };
  router.delete(`${base}/keys/:id`, guard, revoke);
  router.post(`${base}/keys/:id/revoke`, guard, revoke);

  router.post(`${base}/keys/:id/rotate`, guard, async (req, ctx) => {
    const body = parseWith(RotateBody, await readBody(req, ctx));
    const key = await found(req.params.id!);
    if (key.revokedAt !== undefined) throw new GatewayError('invalid_request', `Key "${key.id}" is revoked and cannot be rotated`, { param: 'id' });
    const grace = body.graceSeconds ?? deps.rotateGraceSeconds ?? 86_400;
    const issued = await deps.keys.rotate(key.id, grace);
    if (!issued) throw new GatewayError('not_found', `No live key with id "${key.id}"`, { param: 'id' });
    const t = now();
    return jsonReply(ctx, { key: viewKey(issued.record, t), secret: issued.secret, previousSecretValidUntil: new Date(t + grace * 1000).toISOString() });
  });

  router.get(`${base}/usage`, guard, async (_req, ctx) => {
    const query = readUsageQuery(ctx.query);
    const data = await deps.usage.summarize(query);
    const iso = (t: number | undefined) => (t === undefined ? null : new Date(t).toISOString());
    return jsonReply(ctx, { by: query.by, from: iso(query.from), to: iso(query.to), keyId: query.keyId ?? null, data });
  });
}

async function readBody(req: IRequestStrict, ctx: RequestContext): Promise<unknown> {
  const bytes = await readBodyBytes(req as unknown as Request, ctx.services.config.limits.maxBodyBytes);
  if (bytes.byteLength === 0) return {};
  try {
    return JSON.parse(decoder.decode(bytes));
  } catch {
    throw new GatewayError('invalid_request', 'Request body is not valid JSON');
  }
}

function readExpiry(body: { expiresAt?: string | number; expiresIn?: string }, now: number): { expiresAt?: number } {
  if (body.expiresAt !== undefined && body.expiresIn !== undefined) {
    throw new GatewayError('invalid_request', 'Give either expiresAt or expiresIn, not both', { param: 'expiresIn' });
  }
  if (body.expiresIn !== undefined) {
    const ms = readDuration(body.expiresIn);
    if (ms === undefined || ms <= 0) throw new GatewayError('invalid_request', 'expiresIn: must be a duration such as "12h" or "30d"', { param: 'expiresIn' });
    return { expiresAt: now + ms };
  }
  if (body.expiresAt === undefined) return {};
  const at = readTime(body.expiresAt);
  if (at === undefined) throw new GatewayError('invalid_request', 'expiresAt: must be an ISO 8601 time or Unix seconds', { param: 'expiresAt' });
  return { expiresAt: at };
}

export function readUsageQuery(params: URLSearchParams): UsageQuery {
  const by = params.get('by') ?? 'key';
  if (by !== 'key' && by !== 'model' && by !== 'day') throw new GatewayError('invalid_request', 'by: must be "key", "model" or "day"', { param: 'by' });
  const query: UsageQuery = { by };
  for (const field of ['from', 'to'] as const) {
    const raw = params.get(field);
    if (raw === null) continue;
    const at = readTime(raw);
    if (at === undefined) throw new GatewayError('invalid_request', `${field}: must be an ISO 8601 date or time, or Unix seconds`, { param: field });
    query[field] = at;
  }
  const keyId = params.get('keyId') ?? params.get('key_id');
  if (keyId) query.keyId = keyId;
  return query;
}

/** Compares two hex digests without stopping at the first difference. */
function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
