/**
 * The core path alone, in one process: each scenario's request through `gateway.reply` with
 * production start-up (static key, memory usage store, access-log lines serialised), answered by
 * an in-process upstream that hands the canned nginx file back in two chunks. No sockets, no
 * HTTP parsers, no other process: what is left is Switchyard's own work, so its two numbers move
 * only when that code changes. Bytes allocated per request are exact (V8 counts them; nothing
 * is collected while they are counted); time per request is the best of several rounds.
 *
 * On Node, bench/core.ts runs it twice (`CORE_PROBE_MEASURE`): `time` under `npm start`'s own V8
 * flags, and `count` under `--expose-gc` with semi-spaces large enough that the counted requests
 * fit in the young generation. Timed there, requests cost 3–5× more in some rounds than in others
 * (the first touch of each page of the huge young generation, in the kernel), so a scenario's
 * time depended on where its rounds fell. Under Bun it plays the Bun adapter instead: Bun's own
 * `Request` in (its client signal given to core by `createBunClientWatch`), `writeBunResponse`
 * out; bench/core.ts runs it twice there too, `time` and `count` (readBunCensus: cells, not
 * bytes). Prints one JSON line per scenario.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { startGateway } from '../../adapters/startup.ts';
import { ClientAbort, CLIENT_SIGNAL } from '../../core/http/client-signal.ts';
import { readerOfBody, type Reply } from '../../core/http/reply.ts';
import { writeAccessLogLine, type UpstreamFetch, type UpstreamInit, type UpstreamResponse } from '../../core/index.ts';
import { gatewayConfig } from './gateway-config.ts';
import { familyHeaders, withModel } from './request.ts';
import { pickScenarios } from './scenarios.ts';

const ROOT = process.cwd();
const [warm = 2000, rounds = 7, perRound = 1000, counted = 300] = (process.env.CORE_PROBE_COUNTS ?? '').split(',').filter(Boolean).map(Number);
const measure = process.env.CORE_PROBE_MEASURE ?? 'both';
if (!['time', 'count', 'both'].includes(measure)) throw new Error(`core probe: CORE_PROBE_MEASURE is time, count or both (got ${measure})`);

/** What nginx answers under each provider's base path (bench/nginx.conf). */
const ANSWERS: Record<string, [file: string, type: string]> = {
  '/anthropic-json/': ['anthropic-message.json', 'application/json'],
  '/anthropic-sse/': ['anthropic-stream.sse', 'text/event-stream'],
  '/gemini-sse/': ['gemini-stream.sse', 'text/event-stream'],
  '/openai-json/': ['openai-completion.json', 'application/json'],
  '/openai-sse/': ['openai-stream.sse', 'text/event-stream'],
};
const files = new Map(Object.values(ANSWERS).map(([file]) => [file, new Uint8Array(readFileSync(join(ROOT, 'bench', 'upstream', file)))]));

/**
 * Stands in for the adapters' own upstream client (adapters/http1-client.ts, on Node, Bun and
 * Deno): it enforces the header time-out itself (so core arms no timer per call) and listens on
 * the client's signal while the call runs. Until the thirtieth round the Bun probe answered with
 * web `Response`s and no header time-out of their own, as Bun's `fetch` did before the Bun adapter
 * moved to its own sockets (twenty-fourth round): core then armed a timer and an AbortController
 * per call that the adapter no longer needs.
 */
const fakeFetch: UpstreamFetch = Object.assign(
  async (url: string, init: UpstreamInit) => {
    const [file, type] = answerFor(url);
    const onAbort = () => {};
    init.signal?.addEventListener('abort', onAbort, { once: true });
    init.signal?.removeEventListener('abort', onAbort);
    return cannedResponse(files.get(file)!, type);
  },
  { enforcesHeadersTimeout: true },
);

/** A body file's bytes, with `model` in place of its own where given (as the wrk scripts send it). */
function readBodyFile(file: string, model: string | undefined): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(readFileSync(join(ROOT, 'bench', 'bodies', file)));
  return model ? new TextEncoder().encode(withModel(new TextDecoder().decode(bytes), model)) : bytes;
}

function answerFor(url: string): [file: string, type: string] {
  const path = new URL(url).pathname;
  const prefix = Object.keys(ANSWERS).find((p) => path.startsWith(p));
  if (!prefix) throw new Error(`core probe: no canned answer for ${url}`);
  return ANSWERS[prefix]!;
}

function cannedResponse(body: Uint8Array, type: string): UpstreamResponse {
  // Two chunks, as a socket commonly splits an answer of a few KB.
  const chunks = [body.subarray(0, body.byteLength >> 1), body.subarray(body.byteLength >> 1)];
  let next = 0;
  const text = () => new TextDecoder().decode(body);
  return {
    status: 200,
    ok: true,
    headers: new Headers({ 'content-type': type }),
    body: null,
    reader: () => ({
      read: async () => (next < chunks.length ? { done: false, value: chunks[next++]! } : { done: true, value: undefined }),
      cancel: async () => {},
      // What the adapters' answer reader (adapters/upstream-answer.ts) gives without a read: the
      // chunks that have arrived, here all of them, as in the bench, where an answer comes whole
      // with its headers. Both adapters' writers take it first.
      readBuffered: () => {
        const taken = chunks.slice(next);
        next = chunks.length;
        return { chunks: taken, done: true };
      },
    }),
    // As the adapters' answers give it (adapters/upstream-answer.ts): all of it has arrived.
    takeWhole: () => {
      next = chunks.length;
      return body;
    },
    json: async () => JSON.parse(text()) as unknown,
    text: async () => text(),
    arrayBuffer: async () => body.slice().buffer,
  };
}

/**
 * What the Node adapter hands core: method, url, headers, its light client signal and the body
 * whole. A class, as the adapter's is: a getter in an object literal per request would keep each
 * request's objects alive across minor collections (see Stage in core/http/stage.ts).
 */
class FakeRequest {
  readonly [CLIENT_SIGNAL] = new ClientAbort();
  readonly body = null;

  constructor(
    readonly url: string,
    readonly method: string,
    readonly headers: Headers,
    readonly bytesIn: Uint8Array | undefined,
  ) {}

  // Made only if core reads it (it would show in both numbers), as in the Node adapter.
  get signal(): AbortSignal {
    return new AbortController().signal;
  }

  async bytes(): Promise<Uint8Array> {
    return this.bytesIn ?? new Uint8Array(0);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return (this.bytesIn ?? new Uint8Array(0)).slice().buffer;
  }

  async text(): Promise<string> {
    return new TextDecoder().decode(this.bytesIn);
  }
}

function fakeRequest(url: string, init: { method: string; headers: Headers; body?: Uint8Array }): FakeRequest {
  return new FakeRequest(url, init.method, init.headers, init.body);
}

const onBun = 'Bun' in globalThis;
// Bun writes core's replies through the Bun adapter's own writer (direct streams), and gives core
// the client's signal as its Bun.serve handler does.
const writeBunResponse = onBun ? (await import('../../adapters/bun-response.ts')).writeBunResponse : undefined;
const handOverAtOnce = (whole: Response, written?: () => void) => {
  written?.();
  return whole;
};
const watchBunClient = onBun ? (await import('../../adapters/bun-client-watch.ts')).createBunClientWatch() : undefined;
let logBytes = 0;
const gateway = await startGateway({
  configJson: JSON.stringify(gatewayConfig(1, 'memory')),
  fetch: fakeFetch,
  // Serialised like the real access log, then dropped: the bytes are counted, nothing is written.
  log: (entry) => void (logBytes += writeAccessLogLine(entry).length),
  say: () => {},
  env: {},
});

/**
 * Bytes allocated, on Node only: V8's heap grows by exactly what was allocated while no collection
 * runs. Bun's JavaScriptCore has no such count (its heap size moves with its own eager sweeps, and
 * with the buffers it counts beside the heap); there the probe counts cells instead (readBunCensus).
 */
const countBytes = !onBun && measure !== 'time';
const gc = (globalThis as { gc?: () => void }).gc;
if (countBytes && !gc) throw new Error('core probe: run with node --expose-gc');
// A collection inside the counted window would hide allocations: such a count is refused.
let collections = 0;
if (countBytes) new PerformanceObserver((list) => void (collections += list.getEntries().length)).observe({ entryTypes: ['gc'] });
const settleObserver = () => new Promise((resolve) => setTimeout(resolve, 10));

/** Requests in one window of Bun's census: few enough that a collection seldom falls in one. */
const CENSUS_WINDOW = 100;
/** JavaScriptCore's names for the cells a closure or an async function's own object is. */
const CLOSURE_TYPES = ['Function', 'AsyncFunction', 'GeneratorFunction', 'AsyncGeneratorFunction', 'BoundFunction'];

async function readAllocated(name: string, once: () => Promise<number>): Promise<number | null> {
  if (!countBytes) return null;
  gc!();
  gc!();
  await settleObserver();
  const seen = collections;
  const before = process.memoryUsage().heapUsed;
  for (let i = 0; i < counted; i++) await once();
  const allocated = (process.memoryUsage().heapUsed - before) / counted;
  await settleObserver();
  if (collections !== seen) throw new Error(`core probe: ${name}: the heap was collected while allocations were counted (raise the semi-space size)`);
  if (process.env.CORE_PROBE_HEAP_PROFILE) await writeAllocationProfile(process.env.CORE_PROBE_HEAP_PROFILE, name, once);
  return allocated;
}

for (const scenario of pickScenarios(process.env.CORE_PROBE_SCENARIOS?.split(',').filter(Boolean))) {
  // What the wrk scripts send (bench/lib/request.ts reads bodies relative to its own source
  // file, which this compiled probe no longer sits next to).
  const headers = new Headers(familyHeaders(scenario.gatewayPath));
  const body = scenario.body ? readBodyFile(scenario.body, scenario.bodyModel) : undefined;
  if (body) {
    headers.set('content-type', 'application/json');
    headers.set('content-length', String(body.byteLength));
  }
  const init = { method: scenario.method };
  const url = `http://127.0.0.1${scenario.gatewayPath}`;
  const bunHeaders = Object.fromEntries(headers);
  const once = async (): Promise<number> => {
    if (onBun) {
      const request = new Request(url, { method: init.method, headers: bunHeaders, ...(body && { body }) });
      const client = watchBunClient!(request);
      // Handed over at once, not at the turn's end: one request at a time here, a turn per request
      // would be timed and counted, where the server shares one among all of a turn's requests.
      const response = await writeBunResponse!(await gateway.reply(request), () => client.settle(), handOverAtOnce);
      const answer = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`core probe: ${scenario.name} answered ${response.status}: ${new TextDecoder().decode(answer)}`);
      return answer.byteLength;
    }
    const reply = (await gateway.reply(fakeRequest(url, { method: init.method, headers, ...(body && { body }) }) as never)) as Reply;
    if (reply.status !== 200) throw new Error(`core probe: ${scenario.name} answered ${reply.status}: ${String(reply.body)}`);
    const out = reply.body;
    if (out === null) return 0;
    if (typeof out === 'string') return out.length;
    if (out instanceof Uint8Array) return out.byteLength;
    // As the Node adapter writes a stream (adapters/node-io.ts): what is here first, then reads.
    const reader = readerOfBody(out);
    const ahead = reader.readBuffered?.();
    let size = 0;
    for (const chunk of ahead?.chunks ?? []) size += chunk.byteLength;
    if (ahead?.done) return size;
    for (let r = await reader.read(); !r.done; r = await reader.read()) size += r.value.byteLength;
    return size;
  };
  const bytesOut = await once();
  for (let i = 0; i < warm; i++) await once();
  let best = Infinity;
  for (let round = 0; measure !== 'count' && round < rounds; round++) {
    const started = performance.now();
    for (let i = 0; i < perRound; i++) await once();
    best = Math.min(best, (performance.now() - started) / perRound);
  }
  const allocated = await readAllocated(scenario.name, once);
  const census = await readBunCensus(scenario.name, once);
  const promises = measure === 'time' ? null : (census?.promises ?? (await readPromises(once)));
  console.log(
    JSON.stringify({
      name: scenario.name,
      label: scenario.label,
      usPerRequest: measure === 'count' ? null : best * 1000,
      bytesPerRequest: allocated,
      bytesOut,
      promisesPerRequest: promises,
      objectsPerRequest: census?.objects ?? null,
      closuresPerRequest: census?.closures ?? null,
      cellTypes: census?.types ?? null,
    }),
  );
}
await gateway.close();
if (logBytes === 0) throw new Error('core probe: no access-log lines were written');

/**
 * On Bun: the cells a request leaves in JavaScriptCore's heap, by type, counted by `heapStats()`
 * around CENSUS_WINDOW requests after a full collection. Cells made since the last collection
 * count as live until the next one, so while none runs the difference is what the requests
 * allocated: objects (every cell: objects, strings, closures, their scopes, promises, arrays),
 * closures (function objects made per request), promises, and each type's count. It repeats
 * from run to run; a window a collection fell in reads less, so two windows in a row must agree,
 * or the pair is taken again.
 */
async function readBunCensus(name: string, once: () => Promise<number>): Promise<{ objects: number; closures: number; promises: number; types: Record<string, number> } | null> {
  if (!onBun || measure === 'time') return null;
  const jsc = await import('bun:jsc');
  /** Cells by type made over `requests` requests. */
  const count = async (requests: number) => {
    jsc.fullGC();
    const before = jsc.heapStats().objectTypeCounts;
    for (let i = 0; i < requests; i++) await once();
    const after = jsc.heapStats().objectTypeCounts;
    const made = new Map<string, number>();
    for (const type of new Set([...Object.keys(before), ...Object.keys(after)])) made.set(type, (after[type] ?? 0) - (before[type] ?? 0));
    return made;
  };
  // `heapStats()` leaves cells of its own (325 on Bun 1.4.5: its result and the shapes it makes),
  // which the second call counts: measured around no requests, and taken off.
  const own = await count(0);
  const window = async () => {
    const counted = await count(CENSUS_WINDOW);
    const made = (type: string) => ((counted.get(type) ?? 0) - (own.get(type) ?? 0)) / CENSUS_WINDOW;
    let objects = 0;
    for (const type of counted.keys()) objects += made(type);
    const closures = CLOSURE_TYPES.reduce((sum, type) => sum + made(type), 0);
    // Which cells they are, most made first (those made at least once every other request).
    const types = [...counted.keys()].map((type) => [type, made(type)] as const).filter(([, n]) => n >= 0.5);
    return { objects, closures, promises: made('Promise'), types: Object.fromEntries(types.sort((a, b) => b[1] - a[1])) };
  };
  for (let attempt = 0; attempt < 5; attempt++) {
    const [first, second] = [await window(), await window()];
    if (Math.abs(first.objects - second.objects) <= 0.02 * first.objects) return second;
  }
  throw new Error(`core probe: ${name}: a collection fell in every census window`);
}

/**
 * Promises created per request, on Node only: an async_hooks `init` count over `counted` more
 * requests (run last: a hook slows every promise). With a hook on, V8 also makes the promise an
 * `await` would otherwise skip, so each await counts too; the probe's own loop adds two. Like
 * the byte count, it repeats exactly, and each promise is a microtask and an allocation on the
 * request path (bench/README.md, eleventh round).
 */
async function readPromises(once: () => Promise<number>): Promise<number | null> {
  if (onBun) return null;
  const { createHook } = await import('node:async_hooks');
  let created = 0;
  const hook = createHook({
    init(_id, type) {
      if (type === 'PROMISE') created++;
    },
  }).enable();
  try {
    for (let i = 0; i < counted; i++) await once();
  } finally {
    hook.disable();
  }
  return created / counted;
}

/**
 * Where the bytes come from: V8's sampling heap profiler over `counted` more requests, keeping
 * samples of objects already collected, written as `<dir>/<scenario>.heapprofile` (Chrome
 * DevTools' Memory tab opens it; each node's selfSize is what its function allocated).
 */
async function writeAllocationProfile(dir: string, name: string, once: () => Promise<number>): Promise<void> {
  const { Session } = await import('node:inspector/promises');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  // These two flags keep samples of objects a collection freed: otherwise short-lived garbage,
  // most of what a request allocates, drops out of the profile.
  await session.post('HeapProfiler.startSampling', { samplingInterval: 256, includeObjectsCollectedByMinorGC: true, includeObjectsCollectedByMajorGC: true } as never);
  for (let i = 0; i < counted; i++) await once();
  const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: unknown };
  session.disconnect();
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.heapprofile`), JSON.stringify(profile));
}
