import { readFile } from 'node:fs/promises';
import process from 'node:process';
import { buildDefaultConfig, createGateway, readConfig, type Gateway, type GatewayOptions } from '../core/index.ts';

export interface StartupOptions extends Omit<GatewayOptions, 'env'> {
  argv?: readonly string[];
  env?: Record<string, string | undefined>;
  /** Where start-up messages go (never the access log). */
  say?: (line: string) => void;
}

/**
 * Builds the gateway the way every server adapter starts: the JSON file from `--config PATH` or
 * SWITCHYARD_CONFIG, else a configuration from the usual provider environment variables.
 * Shared by the Bun, Deno and Node adapters (all three implement node:fs and node:process).
 */
export async function startGateway(options: StartupOptions = {}): Promise<Gateway> {
  const env = options.env ?? process.env;
  const say = options.say ?? ((line: string) => console.error(line));
  const path = readConfigPath(options.argv ?? process.argv.slice(2)) ?? env.SWITCHYARD_CONFIG;
  let gateway: Gateway;
  if (path) {
    const doc = await readJsonFile(path);
    gateway = createGateway(readConfig(doc, env), options);
    say(`switchyard: configuration from ${path}`);
  } else {
    let key = env.SWITCHYARD_KEY;
    if (!key) {
      key = generateKey();
      say(`switchyard: no SWITCHYARD_KEY set; generated this key (shown once): ${key}`);
    }
    gateway = createGateway(buildDefaultConfig(env, key), options);
    say('switchyard: no --config or SWITCHYARD_CONFIG; configuration built from environment variables');
  }
  describeModels(gateway, say);
  return gateway;
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
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`configuration file ${path} is not valid JSON: ${(err as Error).message}`);
  }
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
