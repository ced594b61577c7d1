import { RUNTIMES, type Runtime } from './servers.ts';

export interface BenchArgs {
  runtimes: Runtime[];
  seconds: number;
  warmupSeconds: number;
  /** Measured runs per target and connection count, bare proxy and gateway alternating; medians reported. */
  rounds: number;
  /** Disturbed rounds run again, at most this many per scenario and connection count. */
  redo: number;
  connections: number[];
  scenarios?: string[];
  soak?: number;
  ttfbCount: number;
  dripMs: number;
  storage: 'memory' | 'sqlite';
  keepTemp: boolean;
  /** A peer gateway measured on the passthrough scenarios in the Node run. */
  peer?: 'portkey';
  /** The thin gateway of the runtime (Bun, Node) measured with the bare proxy and the gateway on its scenarios. */
  thin: boolean;
  /** The large-prompt scenarios added to the run. */
  large: boolean;
  /** Bare proxies and gateways call nginx over https (its TLS port); clients and the direct runs stay on http. */
  tls: boolean;
}

export const USAGE = `usage: node --import tsx bench/run.ts [options]
  --runtime node|bun|deno|all   runtime(s) of the gateway and its bare proxy (default node)
  --duration 2s                 length of each measured wrk run (default 2s)
  --warmup 1s                   wrk warm-up before each target's runs (default 1s; 0 to skip); on
                                Bun and Node it then goes on a second at a time until the JIT
                                compiler threads are quiet (at most 12 s more)
  --rounds 3                    runs per target and connection count, bare proxy and gateway
                                alternating; each number is the median of its rounds (default 3;
                                1: one run each)
  --redo 2                      a round in which other processes took >= 5% of the server's core,
                                or around which a speed probe ran >= 1.25x its fastest, is run
                                again, whole, at most this many times per scenario and connection
                                count (default 2; 0: never); the runs set aside are counted in the
                                report and kept in the results file
  --connections 8,64            connection counts; latency is read at the lowest, req/s at the highest
  --scenarios a,b               subset of: openai-list, claude-anthropic-json, claude-anthropic-sse,
                                gemini-gemini-sse, claude-openai-json, claude-openai-sse,
                                claude-gemini-sse, gemini-anthropic-json, gemini-anthropic-sse
                                (the default: all of these), claude-anthropic-large,
                                claude-openai-large
  --large                       also the large-prompt scenarios (a ~100K-token, ~400 KB request;
                                no targets; they raise the run's peak RSS)
  --ttfb 50                     sequential requests per target for time to first byte (0 to skip)
  --drip-ms 20                  delay between the first events and the rest for the TTFB check
  --storage memory|sqlite       gateway usage storage (default memory; sqlite: a file in the temp dir)
  --soak N                      instead of the matrix: N requests of one passthrough scenario
                                (the first of --scenarios, default claude-anthropic-json) on the
                                gateway, RSS reported at 10%, 50% and 100%
  --peer portkey                also measure Portkey's gateway (devDependency, pinned) on the
                                Claude-style → Anthropic scenarios, in the Node run
  --thin                        also measure the thin gateway (bench/thin-gateway-{bun,node}.ts: the
                                targets' features in one function) on the Claude-style → Anthropic
                                scenarios, alternating with the bare proxy and the gateway
  --tls                         bare proxies, gateways and thin gateways call nginx over https (as
                                hosted providers are reached; a test authority's certificate,
                                trusted through NODE_EXTRA_CA_CERTS); wrk and the direct runs stay
                                on http
  --keep                        keep the temporary directory (configs, logs, access log)`;

/** "5s", "500ms", "2m" or a plain number of seconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m) throw new Error(`not a duration: ${text} (e.g. 5s, 500ms, 1m)`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n / 1000 : m[2] === 'm' ? n * 60 : n;
}

export function parseArgs(argv: string[]): BenchArgs {
  const args: BenchArgs = { runtimes: ['node'], seconds: 2, warmupSeconds: 1, rounds: 3, redo: 2, connections: [8, 64], ttfbCount: 50, dripMs: 20, storage: 'memory', keepTemp: false, thin: false, large: false, tls: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--runtime': {
        const v = value();
        if (v === 'all') args.runtimes = [...RUNTIMES];
        else {
          const list = v.split(',') as Runtime[];
          const bad = list.filter((r) => !RUNTIMES.includes(r));
          if (bad.length) throw new Error(`unknown runtime ${bad.join(', ')} (node, bun, deno or all)`);
          args.runtimes = list;
        }
        break;
      }
      case '--duration': args.seconds = parseDuration(value()); break;
      case '--warmup': args.warmupSeconds = parseDuration(value()); break;
      case '--rounds': {
        args.rounds = Number(value());
        if (!Number.isInteger(args.rounds) || args.rounds < 1 || args.rounds > 9) throw new Error('--rounds: 1 to 9');
        break;
      }
      case '--redo': {
        args.redo = Number(value());
        if (!Number.isInteger(args.redo) || args.redo < 0 || args.redo > 9) throw new Error('--redo: 0 to 9');
        break;
      }
      case '--connections': {
        args.connections = value().split(',').map(Number);
        if (args.connections.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('--connections: positive integers, e.g. 8,64');
        break;
      }
      case '--scenarios': args.scenarios = value().split(',').filter(Boolean); break;
      case '--soak': {
        args.soak = Number(value());
        if (!Number.isInteger(args.soak) || args.soak < 1000) throw new Error('--soak: a request count of at least 1000, e.g. 1000000');
        break;
      }
      case '--ttfb': args.ttfbCount = Number(value()); break;
      case '--drip-ms': args.dripMs = Number(value()); break;
      case '--storage': {
        const v = value();
        if (v !== 'memory' && v !== 'sqlite') throw new Error('--storage: memory or sqlite');
        args.storage = v;
        break;
      }
      case '--peer': {
        if (value() !== 'portkey') throw new Error('--peer: portkey');
        args.peer = 'portkey';
        break;
      }
      case '--keep': args.keepTemp = true; break;
      case '--thin': args.thin = true; break;
      case '--large': args.large = true; break;
      case '--tls': args.tls = true; break;
      case '--help': case '-h': console.log(USAGE); process.exit(0); break;
      default: throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  if (args.seconds < 1) throw new Error('--duration: at least 1s (wrk runs whole seconds)');
  if (args.thin && (args.soak || !args.runtimes.some((r) => r !== 'deno'))) throw new Error('--thin: measured in the Node and Bun matrix runs (not with --soak or Deno alone)');
  if (args.peer && (args.soak || !args.runtimes.includes('node'))) throw new Error('--peer portkey: measured in the Node matrix run (with --runtime node or all, without --soak)');
  if (args.peer && args.tls) throw new Error('--peer portkey: measured over plain HTTP (not with --tls)');
  return args;
}
