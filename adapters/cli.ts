import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { readAccountingConfig } from '../core/accounting/read-config.ts';
import type { UsageSummaryRow } from '../core/accounting/types.ts';
import { readUsageQuery } from '../core/admin/routes.ts';
import { readDuration, readTime, viewKey, type KeyView } from '../core/admin/key-view.ts';
import { isGatewayError } from '../core/errors.ts';
import { openStorage, type Storage } from './storage/open-storage.ts';
import { readConfigPath } from './startup.ts';

const HELP = `usage: npx tsx adapters/cli.ts [--config PATH] <command>

  keys create --name NAME [--models ID,ID] [--rpm N] [--tpm N] [--budget USD]
              [--expires ISO-TIME | --expires-in 30d]
  keys list
  keys show ID
  keys revoke ID
  keys rotate ID [--grace SECONDS]
  usage [--by key|model|day] [--from DATE] [--to DATE] [--key ID]

Every command takes --json. The store is the one the configuration names (--config or
SWITCHYARD_CONFIG; SQLite at ./data/switchyard.db without either).`;

type Flags = Record<string, string | true>;

/** Splits `--name value`, `--name=value` and bare `--json` from positional words. */
export function parseArgs(argv: readonly string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) flags[arg.slice(2, eq)] = arg.slice(eq + 1);
    else if (arg === '--json' || arg === '--help' || argv[i + 1] === undefined || argv[i + 1]!.startsWith('--')) flags[arg.slice(2)] = true;
    else flags[arg.slice(2)] = argv[++i]!;
  }
  return { words, flags };
}

class UsageError extends Error {}

function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value;
}

function number(flags: Flags, name: string, integer: boolean): number | undefined {
  const raw = text(flags, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) throw new UsageError(`--${name} must be a ${integer ? 'whole ' : ''}number`);
  return value;
}

export async function runCli(argv: readonly string[], env: Record<string, string | undefined>, out: (line: string) => void): Promise<number> {
  const { words, flags } = parseArgs(argv);
  if (flags.help || words.length === 0) {
    out(HELP);
    return words.length === 0 && !flags.help ? 2 : 0;
  }
  const path = readConfigPath(argv) ?? env.SWITCHYARD_CONFIG;
  const doc = (path ? JSON.parse(await readFile(path, 'utf8')) : {}) as ConfigDoc;
  const config = readAccountingConfig(doc, env);
  const storage = await openStorage(config, { onError: () => {} });
  try {
    return await dispatch(words, flags, storage, config.rotateGraceSeconds, out, doc);
  } finally {
    await storage.close();
  }
}

async function dispatch(words: string[], flags: Flags, storage: Storage, defaultGrace: number, out: (line: string) => void, doc: ConfigDoc): Promise<number> {
  const json = flags.json === true;
  const now = Date.now();
  const [group, action, id] = words;
  const print = (value: unknown, human: () => string) => out(json ? JSON.stringify(value, null, 2) : human());
  if (group === 'usage') {
    const params = new URLSearchParams();
    for (const [flag, param] of [['by', 'by'], ['from', 'from'], ['to', 'to'], ['key', 'keyId']] as const) {
      const value = text(flags, flag);
      if (value !== undefined) params.set(param, value);
    }
    const query = readUsageQuery(params);
    const rows = await storage.usage.summarize(query);
    print({ by: query.by, data: rows }, () => usageTable(query.by, rows));
    return 0;
  }
  if (group !== 'keys') throw new UsageError(`unknown command "${words.join(' ')}"`);
  if (action === 'create') {
    const name = text(flags, 'name');
    if (!name) throw new UsageError('keys create needs --name NAME');
    const expiresIn = text(flags, 'expires-in');
    const expires = text(flags, 'expires');
    const expiresAt = expiresIn !== undefined ? now + (readDuration(expiresIn) ?? NaN) : expires !== undefined ? readTime(expires) ?? NaN : undefined;
    if (Number.isNaN(expiresAt)) throw new UsageError('--expires takes an ISO time, --expires-in a duration such as 30d');
    const models = text(flags, 'models')?.split(',').map((m) => canonicalModel(doc, m.trim())).filter(Boolean);
    const rpm = number(flags, 'rpm', true);
    const tpm = number(flags, 'tpm', true);
    const budgetUsd = number(flags, 'budget', false);
    const { record, secret } = await storage.keys.create({
      name,
      ...(models && { models }),
      ...(rpm !== undefined && { rpm }),
      ...(tpm !== undefined && { tpm }),
      ...(budgetUsd !== undefined && { budgetUsd }),
      ...(expiresAt !== undefined && { expiresAt }),
    });
    const key = viewKey(record, now);
    print({ key, secret }, () => `created ${describe(key)}\nsecret (shown once, store it now):\n${secret}`);
    return 0;
  }
  if (action === 'list') {
    const keys = (await storage.keys.list()).map((k) => viewKey(k, now));
    print({ data: keys }, () => (keys.length ? keys.map(describe).join('\n') : 'no stored keys'));
    return 0;
  }
  if (action !== 'show' && action !== 'revoke' && action !== 'rotate') throw new UsageError(`unknown command "keys ${action ?? ''}"`);
  if (!id) throw new UsageError(`keys ${action} needs a key id`);
  if (action === 'show') {
    const record = await storage.keys.get(id);
    if (!record) return notFound(id, out);
    const [usage] = await storage.usage.summarize({ by: 'key', keyId: id });
    const key = viewKey(record, now);
    print({ key, usage: usage ?? null }, () => `${describe(key)}\n${usage ? usageTable('key', [usage]) : 'no usage recorded'}`);
    return 0;
  }
  if (action === 'revoke') {
    const record = await storage.keys.revoke(id);
    if (!record) return notFound(id, out);
    print({ key: viewKey(record, now) }, () => `revoked ${describe(viewKey(record, now))}`);
    return 0;
  }
  if (action === 'rotate') {
    const grace = number(flags, 'grace', true) ?? defaultGrace;
    const issued = await storage.keys.rotate(id, grace);
    if (!issued) return notFound(id, out, ' (or it is revoked)');
    const key = viewKey(issued.record, now);
    const until = new Date(now + grace * 1000).toISOString();
    print({ key, secret: issued.secret, previousSecretValidUntil: until }, () => `rotated ${describe(key)}\nprevious secret valid until ${until}\nnew secret (shown once):\n${issued.secret}`);
    return 0;
  }
  return 2;
}

interface ConfigDoc {
  prefix?: string;
  models?: Array<{ id?: string; aliases?: string[] }>;
}

/** The catalogue id of a model named as the gateway would accept it (prefix, alias, `models/`). */
function canonicalModel(doc: ConfigDoc, name: string): string {
  if (!name || !Array.isArray(doc.models)) return name;
  const bare = name.replace(/^models\//, '');
  const candidates = doc.prefix && bare.startsWith(`${doc.prefix}.`) ? [bare, bare.slice(doc.prefix.length + 1)] : [bare];
  for (const candidate of candidates) {
    const model = doc.models.find((m) => m.id === candidate || m.aliases?.includes(candidate));
    if (model?.id) return model.id;
  }
  throw new UsageError(`--models: no model named "${name}" in the configuration`);
}

function notFound(id: string, out: (line: string) => void, extra = ''): number {
  out(`no key with id "${id}"${extra}`);
  return 1;
}

function describe(k: KeyView): string {
  const limits = [k.models && `models=${k.models.join(',')}`, k.rpm && `rpm=${k.rpm}`, k.tpm && `tpm=${k.tpm}`, k.budgetUsd !== undefined && `budget=$${k.budgetUsd}`, k.expiresAt && `expires=${k.expiresAt}`];
  return [k.id, JSON.stringify(k.name), `${k.prefix}…`, k.status, `created=${k.createdAt}`, ...limits.filter(Boolean)].join('  ');
}

function usageTable(by: string, rows: UsageSummaryRow[]): string {
  if (rows.length === 0) return 'no usage recorded';
  const head = [by, 'requests', 'errors', 'input', 'output', 'cache read', 'cache write', 'cost USD'];
  const body = rows.map((r) => [r.group, r.requests, r.errors, r.inputTokens, r.outputTokens, r.cacheReadTokens, r.cacheWriteTokens, r.costUsd.toFixed(6)].map(String));
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  return [head, ...body].map((row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  runCli(process.argv.slice(2), process.env, (line) => console.log(line)).then(
    (code) => process.exit(code),
    (err: unknown) => {
      const message = err instanceof UsageError ? `${err.message}\n\n${HELP}` : isGatewayError(err) ? err.message : err instanceof Error ? err.message : String(err);
      console.error(`switchyard: ${message}`);
      process.exit(err instanceof UsageError ? 2 : 1);
    },
  );
}
