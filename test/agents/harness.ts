import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayConfigInput } from '../../core/index.ts';
import { startTestGateway, testConfig, TEST_KEY, type RunningGateway } from '../helpers/gateway.ts';
import { spawnGateway, type SpawnedGateway } from '../runtime/spawn-gateway.ts';
import { startFakeLlm, type FakeCall, type FakeLlm, type UpstreamKind } from './fake-llm.ts';

export { TEST_KEY } from '../helpers/gateway.ts';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A coding agent's executable: the project's node_modules/.bin first, then the directory in
 * SWITCHYARD_AGENTS_DIR (e.g. /tmp/agents/node_modules/.bin). Undefined when neither has it.
 */
export function findAgent(name: string): string | undefined {
  const dirs = [join(REPO, 'node_modules', '.bin'), process.env.SWITCHYARD_AGENTS_DIR].filter((d): d is string => !!d);
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p));
}

/** Models behind the gateway: one per upstream kind, plus Claude-named aliases routed elsewhere. */
export const MODELS = {
  /** anthropic kind: Claude Code's fast path */
  claude: 'claude-sonnet-4-5',
  haiku: 'claude-haiku-4-5',
  /** openai kind, Groq-style (reasons unasked, returns `reasoning`) */
  oss: 'gpt-oss-120b',
  /** gemini kind, thinking budgets */
  gemini25: 'gemini-2.5-flash',
  /** gemini kind, call ids and validated thought signatures */
  gemini3: 'gemini-3-flash-preview',
  /** A Claude name (so Claude Code asks for budget 31999) served by Gemini 2.5 Flash (range 0-24576). */
  sonnetOnGemini: 'claude-sonnet-4-5-on-gemini',
} as const;

/** Upstream kind each model is served by. */
export const KIND_OF: Record<string, UpstreamKind> = {
  [MODELS.claude]: 'anthropic',
  [MODELS.haiku]: 'anthropic',
  [MODELS.oss]: 'openai',
  [MODELS.gemini25]: 'gemini',
  [MODELS.gemini3]: 'gemini',
  [MODELS.sonnetOnGemini]: 'gemini',
};

export interface Rig<G = RunningGateway> {
  fake: FakeLlm;
  gateway: G;
  /** A temp folder with alpha.txt and beta.md: what the agent is asked to list. */
  workdir: string;
  /** A temp HOME so the agent reads no user settings and leaves nothing behind. */
  home: string;
  close(): Promise<void>;
}

/** The gateway's configuration in front of the fake model at `fakeUrl` (any runtime's adapter takes it). */
export function rigConfig(fakeUrl: string): GatewayConfigInput {
  return testConfig({
    providers: {
      claude: { type: 'anthropic', baseUrl: `${fakeUrl}/anthropic`, apiKey: 'upstream-anthropic-key' },
      oss: { type: 'openai', baseUrl: `${fakeUrl}/openai/v1`, apiKey: 'upstream-openai-key', reasoningField: 'reasoning' },
      google: { type: 'gemini', baseUrl: `${fakeUrl}/gemini`, apiKey: 'upstream-gemini-key' },
    },
    models: [
      { id: MODELS.claude, routes: [{ provider: 'claude', model: 'claude-sonnet-4-5-20250929' }] },
      { id: MODELS.haiku, routes: [{ provider: 'claude', model: 'claude-haiku-4-5-20251001' }] },
      { id: MODELS.oss, routes: [{ provider: 'oss', model: 'openai/gpt-oss-120b' }] },
      { id: MODELS.gemini25, routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
      { id: MODELS.gemini3, routes: [{ provider: 'google', model: 'gemini-3-flash-preview' }] },
      { id: MODELS.sonnetOnGemini, routes: [{ provider: 'google', model: 'gemini-2.5-flash' }] },
    ],
  });
}

/** Claude Code's environment for a headless run against the gateway at `gatewayUrl` on `model`. */
export function claudeEnv(gatewayUrl: string, home: string, model: string): Record<string, string> {
  return {
    HOME: home,
    ANTHROPIC_BASE_URL: `${gatewayUrl}/api/anthropic`,
    ANTHROPIC_API_KEY: TEST_KEY,
    ANTHROPIC_MODEL: `acme.${model}`,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: `acme.${MODELS.haiku}`,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** More upstreams in front of the fake model (a fake Bedrock, say): their providers and models join the rig's. */
export interface ExtraUpstreams {
  providers: NonNullable<GatewayConfigInput['providers']>;
  models: NonNullable<GatewayConfigInput['models']>;
  close(): Promise<void>;
}

/** Fake upstreams, the gateway in front of them (in process), and a scratch workspace. */
export function startRig(extra?: (fake: FakeLlm) => Promise<ExtraUpstreams>): Promise<Rig> {
  return startRigWith((config) => startTestGateway(config), extra);
}

/** The same with the Bun adapter (`bun run adapters/bun.ts`) spawned as the gateway. */
export function startBunRig(bun: string): Promise<Rig<SpawnedGateway>> {
  return startRigWith((config) => spawnGateway(bun, ['run', 'test/runtime/fixtures/serve-bun.ts'], config));
}

/**
 * Gemini CLI's user settings in `home`. GOOGLE_GEMINI_BASE_URL alone makes 0.61 pick the
 * "gateway" auth type, which headless mode refuses ("Invalid auth method selected"): they name
 * the API-key method.
 */
export async function writeGeminiSettings(home: string): Promise<void> {
  await mkdir(join(home, '.gemini'));
  const settings = {
    security: { auth: { selectedType: 'gemini-api-key' } },
    privacy: { usageStatisticsEnabled: false },
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  };
  await writeFile(join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
}

async function startRigWith<G extends { close(): Promise<void> }>(start: (config: GatewayConfigInput) => Promise<G>, extra?: (fake: FakeLlm) => Promise<ExtraUpstreams>): Promise<Rig<G>> {
  const fake = await startFakeLlm();
  const more = await extra?.(fake).catch(async (err: unknown) => {
    await fake.close();
    throw err;
  });
  const config = rigConfig(fake.url);
  if (more) {
    config.providers = { ...config.providers, ...more.providers };
    config.models = [...(config.models ?? []), ...more.models];
  }
  const gateway = await start(config);
  const root = await mkdtemp(join(tmpdir(), 'switchyard-agent-'));
  const workdir = join(root, 'work');
  const home = join(root, 'home');
  await mkdir(workdir);
  await mkdir(home);
  await writeFile(join(workdir, 'alpha.txt'), 'hi\n');
  await writeFile(join(workdir, 'beta.md'), '# b\n');
  return {
    fake,
    gateway,
    workdir,
    home,
    async close() {
      await Promise.all([fake.close(), gateway.close(), more?.close()]);
      // The agents finish writing session files under HOME just after they exit. A file written
      // while rm walks the tree fails it with ENOTEMPTY (seen once in CI): rm retries such errors
      // itself, and the folder is swept once more after the stragglers are done.
      const sweep = () => rm(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      await sweep().catch(() => {});
      await new Promise((resolve) => setTimeout(resolve, 300));
      await sweep();
    },
  };
}

export interface AgentRun {
  code: number | null;
  /** Killed after `timeoutMs`. */
  timedOut: boolean;
  stdout: string;
  stderr: string;
  ms: number;
}

/**
 * Runs an agent non-interactively with a clean environment (PATH plus `env`), stdin closed, and
 * kills its whole process group after `timeoutMs`.
 */
export function runAgent(bin: string, args: string[], opts: RunOptions): Promise<AgentRun> {
  const started = performance.now();
  const child = spawn(bin, args, {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? ['/usr/local/bin', '/usr/bin', '/bin'].join(delimiter), ...opts.env },
    // An interactive session behind `script` ends when its stdin does: keep it open, write nothing.
    stdio: [opts.stopWhen ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  let timedOut = false;
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, opts.timeoutMs ?? 30_000);
  const poll = opts.stopWhen && setInterval(() => {
    if (opts.stopWhen!()) {
      clearInterval(poll);
      setTimeout(kill, 300);
    }
  }, 100);
  return new Promise((resolve) => {
    child.on('close', (code) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      resolve({ code, timedOut, stdout, stderr, ms: Math.round(performance.now() - started) });
    });
  });
}

export interface RunOptions {
  cwd: string;
  env: Record<string, string>;
  timeoutMs?: number;
  /** For sessions that never exit by themselves: end the run (kill) once this holds. */
  stopWhen?: () => boolean;
}

/** `script` gives a command a terminal (interactive agents need one); undefined when absent. */
export function findScript(): string | undefined {
  return ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
}

/** The JSON object that ends an agent's output (warnings may come before it). */
export function printedJson(text: string): any {
  const end = text.lastIndexOf('}');
  for (let start = text.indexOf('{'); start >= 0 && start < end; start = text.indexOf('{', start + 1)) {
    try {
      return JSON.parse(text.slice(start, end + 1));
    } catch {
      // keep looking: the text before may contain braces
    }
  }
  return undefined;
}

/** What a failed assertion on a run through a spawned gateway shows: the run, the fake's calls, the gateway's stderr. */
export function describeSpawnedRun(rig: Rig<SpawnedGateway>, run: AgentRun, chats: FakeCall[]): string {
  return `exit ${run.code} after ${Math.round(run.ms)} ms; fake: ${chats.map((c) => `${c.kind} ${c.answer}`).join(' | ')}; rejections: ${rig.fake.rejections.join(' | ')}\nstdout: ${run.stdout.slice(-1500)}\nstderr: ${run.stderr.slice(-1500)}\ngateway: ${rig.gateway.stderr().slice(-1500)}`;
}

/** What the run looked like from the gateway and the fake: for assertion messages. */
export function describeRun(rig: Rig, run: AgentRun): string {
  const log = rig.gateway.logs.map((l) => `${l.method} ${l.path} → ${l.status}${l.error ? ` (${l.error})` : ''}`);
  const calls = rig.fake.calls.map((c) => `${c.kind} ${c.method} ${c.path} → ${c.answer}`);
  return [
    `exit ${run.code}${run.timedOut ? ' (timed out)' : ''} after ${run.ms} ms`,
    `gateway: ${squeeze(log) || '(no requests)'}`,
    `fake: ${squeeze(calls) || '(no requests)'}`,
    `rejections: ${squeeze(rig.fake.rejections) || 'none'}`,
    `stdout: ${run.stdout.slice(-1500)}`,
    `stderr: ${run.stderr.slice(-1500)}`,
  ].join('\n');
}

/** Joins lines, writing a run of repeats (agents retry) once with a count. */
function squeeze(lines: string[]): string {
  const out: string[] = [];
  let n = 0;
  lines.forEach((line, i) => {
    n++;
    if (line === lines[i + 1]) return;
    out.push(n > 1 ? `${line} (×${n})` : line);
    n = 0;
  });
  return out.join(' | ');
}
