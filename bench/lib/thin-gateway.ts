/**
 * What the thin gateways (bench/thin-gateway-bun.ts, bench/thin-gateway-node.ts) share: their
 * routes read from the benchmark's gateway configuration, and the usage record and access-log
 * line each answer ends with. Runtime-neutral (setImmediate and process.stdout exist on both).
 */
import process from 'node:process';

/** What the thin gateways serve: the Claude-style → Anthropic passthrough. */
export const THIN_SCENARIOS = ['claude-anthropic-json', 'claude-anthropic-sse', 'claude-anthropic-large'];

/** The runtimes with a thin gateway. */
export const THIN_RUNTIMES = ['bun', 'node'];

interface BenchConfig {
  prefix: string;
  keys: Array<{ id: string; key: string }>;
  providers: Record<string, { type: string; baseUrl: string; apiKey: string }>;
  models: Array<{ id: string; routes: Array<{ provider: string; model: string }> }>;
}

export interface ThinRoute {
  model: string;
  /** The upstream's messages URL, and its origin and path apart (for a pool bound to the origin). */
  url: string;
  origin: string;
  path: string;
  apiKey: string;
  /** The client's body with its model replaced, without parsing it again. */
  splice(text: string, clientModel: string): string;
}

/**
 * Keys (presented key → key id) and routes (model name, plain or prefixed → route) of the
 * configuration's Anthropic models; the file comes from `--config PATH` or SWITCHYARD_CONFIG, as
 * the gateway's does.
 */
export function readThinConfig(argv: readonly string[], env: Record<string, string | undefined>, readText: (path: string) => string): { keys: Map<string, string>; routes: Map<string, ThinRoute> } {
  const at = argv.indexOf('--config');
  const path = at >= 0 ? argv[at + 1] : env.SWITCHYARD_CONFIG;
  if (!path) throw new Error('thin-gateway: --config PATH (or SWITCHYARD_CONFIG) is required');
  const config = JSON.parse(readText(path)) as BenchConfig;
  const keys = new Map(config.keys.map((k) => [k.key, k.id]));
  const routes = new Map<string, ThinRoute>();
  for (const model of config.models) {
    const target = model.routes[0]!;
    const provider = config.providers[target.provider]!;
    if (provider.type !== 'anthropic') continue;
    const url = new URL(`${provider.baseUrl}/v1/messages`);
    const upstreamModel = JSON.stringify(target.model);
    const route: ThinRoute = {
      model: model.id,
      url: url.href,
      origin: url.origin,
      path: url.pathname,
      apiKey: provider.apiKey,
      // The benchmark's bodies name their model once, before anything that could repeat it.
      splice(text, clientModel) {
        const quoted = JSON.stringify(clientModel);
        const i = text.indexOf(quoted, text.indexOf('"model"'));
        return text.slice(0, i) + upstreamModel + text.slice(i + quoted.length);
      },
    };
    routes.set(model.id, route);
    routes.set(`${config.prefix}.${model.id}`, route);
  }
  return { keys, routes };
}

const USAGE = /"(input_tokens|output_tokens)"\s*:\s*(\d+)/g;
const RECORDS_KEPT = 10_000;

interface ThinRecord {
  id: string;
  key: string;
  model: string;
  status: number;
  inputTokens: number;
  outputTokens: number;
  ms: number;
}

/** Usage records, the newest 10,000 in a ring (as Switchyard's memory store keeps in full). */
const records: ThinRecord[] = [];
let nextRecord = 0;
let logLines: string[] = [];

/** Anthropic's token counts in what the answer showed (cumulative: the largest value wins). */
export function readThinUsage(seen: string): { inputTokens: number; outputTokens: number } {
  let inputTokens = 0;
  let outputTokens = 0;
  for (const m of seen.matchAll(USAGE)) {
    if (m[1] === 'input_tokens') inputTokens = Math.max(inputTokens, Number(m[2]));
    else outputTokens = Math.max(outputTokens, Number(m[2]));
  }
  return { inputTokens, outputTokens };
}

/** Reads the usage from what the answer showed (its head and tail), keeps the record and logs the call. */
export function settleThin(id: string, key: string, model: string, status: number, seen: string, started: number): void {
  const { inputTokens, outputTokens } = readThinUsage(seen);
  const ms = performance.now() - started;
  records[nextRecord] = { id, key, model, status, inputTokens, outputTokens, ms };
  nextRecord = (nextRecord + 1) % RECORDS_KEPT;
  // Buffered per event-loop turn, as Switchyard's access log is.
  if (logLines.length === 0) setImmediate(flushLog);
  logLines.push(`${JSON.stringify({ time: new Date().toISOString(), id, path: '/api/anthropic/v1/messages', status, ms: Math.round(ms * 100) / 100, key, model })}\n`);
}

function flushLog(): void {
  process.stdout.write(logLines.join(''));
  logLines = [];
}
