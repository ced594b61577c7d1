import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { buildDefaultConfig, createGateway, readConfig, type AccessLogEntry, type Gateway, type GatewayConfig, type GatewayOptions } from '../core/index.ts';
import { createLogWriter } from './log-writer.ts';
import { openStorage } from './storage/open-storage.ts';

export interface StartupOptions extends Omit<GatewayOptions, 'env'> {
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
  /** The configuration document as JSON text (Lambda's SWITCHYARD_CONFIG_JSON) instead of a file. */
  configJson?: string;
  /**
   * Open the embedded SQLite store when the configuration names no `storage` (servers: yes;
   * Lambda: no, its file system is read-only and its containers short-lived).
   */
  defaultStorage?: boolean;
  /** Where start-up messages go (never the access log). */
  say?: (line: string) => void;
  /** How the access log's default writer makes a line of an entry (see createLogWriter). */
  writeLogLine?: (entry: AccessLogEntry) => string;
}

export interface StartedGateway extends Gateway {
  /** Flushes pending usage records and closes storage connections (graceful shutdown). */
  close(): Promise<void>;
}

/**
 * Builds the gateway the way every adapter starts: the JSON file from `--config PATH` or
 * SWITCHYARD_CONFIG (or `configJson`), else a configuration from the usual provider environment
 * variables; then opens key and usage storage. Shared by the Bun, Deno, Node and Lambda adapters
 * (all implement node:fs and node:process).
 */
export async function startGateway(options: StartupOptions = {}): Promise<StartedGateway> {
  const env = options.env ?? process.env;
  const say = options.say ?? ((line: string) => console.error(line));
  const path = readConfigPath(options.argv ?? process.argv.slice(2)) ?? env.SWITCHYARD_CONFIG;
  let config: GatewayConfig;
  if (path || options.configJson) {
    const doc = path ? await readJsonFile(path) : parseJson(options.configJson!, 'SWITCHYARD_CONFIG_JSON');
    config = readConfig(doc, env);
    say(`switchyard: configuration from ${path ?? 'SWITCHYARD_CONFIG_JSON'}`);
  } else {
    let key = env.SWITCHYARD_KEY;
    if (!key) {
      key = generateKey();
      say(`switchyard: no SWITCHYARD_KEY set; generated this key (shown once): ${key}`);
    }
    config = readConfig(buildDefaultConfig(env, key));
    say('switchyard: no --config or SWITCHYARD_CONFIG; configuration built from environment variables');
  }
  const storage = config.storage || options.defaultStorage !== false ? await openStorage(config) : undefined;
  const { argv: _argv, env: _env, configJson: _json, defaultStorage: _default, say: _say, writeLogLine, ...gatewayOptions } = options;
  const logWriter = gatewayOptions.log ? undefined : createLogWriter(undefined, writeLogLine);
  const gateway = createGateway(config, {
    ...(logWriter && { log: logWriter.log }),
    ...gatewayOptions,
    ...(storage && {
      keys: storage.keys,
      meter: storage.meter,
      admin: { keys: storage.keys, usage: storage.usage, admin: config.admin, rotateGraceSeconds: config.rotateGraceSeconds },
    }),
  });
  say(`switchyard: keys and usage: ${storage ? storage.description : 'static keys from the configuration, no usage records'}`);
  describeModels(gateway, say);
  return {
    ...gateway,
    close: async () => {
      logWriter?.flush();
      await storage?.close();
    },
  };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${what} is not valid JSON: ${(err as Error).message}`);
  }
}

export function readConfigPath(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--config') return argv[i + 1];
    if (arg.startsWith('--config=')) return arg.slice('--config='.length);
  }
  return undefined;
}

async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read configuration file ${path}: ${(err as Error).message}`);
  }
  return parseJson(text, `configuration file ${path}`);
}

function generateKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `sy-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function describeModels(gateway: Gateway, say: (line: string) => void): void {
  const { catalog, config } = gateway;
  if (catalog.models.length === 0) {
    say('switchyard: serving NO models: set ANTHROPIC_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, OPENAI_BASE_URL or AWS credentials, or pass --config');
    return;
  }
  const prefix = config.prefix ? `${config.prefix}.` : '';
  say(`switchyard: serving ${catalog.models.length} model(s) (call them as "${prefix}<id>" or "<id>"):`);
  for (const model of catalog.models) {
    say(`  ${model.id}  ->  ${model.routes.map((r) => `${r.provider}:${r.upstreamModel}`).join(', ')}`);
  }
}

/** Exits with the message (not a stack) when start-up fails: a bad config file is a user error. */
export function exitOnStartupError(err: unknown): never {
  console.error(`switchyard: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

export function readListenOptions(env: Record<string, string | undefined> = process.env): { port: number; hostname: string } {
  return { port: Number(env.PORT ?? 8787), hostname: env.HOST ?? '127.0.0.1' };
}
