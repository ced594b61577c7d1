/**
 * What the benchmark calls. Each scenario has the gateway's path (client family) and the upstream
 * path nginx answers (used directly and through the bare proxy), so "added latency" always
 * compares the same upstream answer with and without something in between.
 */
export type Format = 'openai-list' | 'anthropic-json' | 'anthropic-sse' | 'gemini-json' | 'gemini-sse' | 'openai-json' | 'openai-sse';

export interface Scenario {
  name: string;
  label: string;
  kind: 'listing' | 'passthrough' | 'translated';
  stream: boolean;
  method: 'GET' | 'POST';
  /** Path on the gateway (with query). */
  gatewayPath: string;
  /** Path on nginx, and on the bare proxy, which forwards it unchanged. */
  upstreamPath: string;
  /** What the client gets from the gateway, and what nginx sends. */
  clientFormat: Format;
  upstreamFormat: Format;
  /** Request body under bench/bodies/ (also read by the wrk script of the same name). */
  body?: string;
  /** The passthrough scenario whose throughput a translated one is compared with. */
  passthroughRef?: string;
  /** Time-to-first-byte check against the dripping upstream (SSE only). */
  drip?: { gatewayPath: string; upstreamPath: string; model?: string };
  /** The model the body is sent with, in place of the one in its file (one large body serves two scenarios). */
  bodyModel?: string;
  /**
   * A coding agent's ~100,000-token prompt (~400 KB; bench/lib/large-body.ts) instead of a ~1 KB
   * one: measured and reported, but held to no target, as the targets are set for ~1 KB
   * requests.
   */
  large?: boolean;
}

const GEMINI_UP = 'v1beta/models/gemini-2.5-flash';

export const SCENARIOS: Scenario[] = [
  {
    name: 'openai-list', label: 'OpenAI-style listing', kind: 'listing', stream: false, method: 'GET',
    gatewayPath: '/api/openai/v1/models', upstreamPath: '/openai-models/v1/models',
    clientFormat: 'openai-list', upstreamFormat: 'openai-list',
  },
  {
    name: 'claude-anthropic-json', label: 'Claude → Anthropic JSON (pass)', kind: 'passthrough', stream: false, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/anthropic-json/v1/messages',
    clientFormat: 'anthropic-json', upstreamFormat: 'anthropic-json', body: 'claude-anthropic-json.json',
  },
  {
    name: 'claude-anthropic-sse', label: 'Claude → Anthropic SSE (pass)', kind: 'passthrough', stream: true, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/anthropic-sse/v1/messages',
    clientFormat: 'anthropic-sse', upstreamFormat: 'anthropic-sse', body: 'claude-anthropic-sse.json',
    drip: { gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/drip/anthropic/v1/messages', model: 'bench.claude-drip' },
  },
  {
    name: 'gemini-gemini-sse', label: 'Gemini → Gemini SSE (pass)', kind: 'passthrough', stream: true, method: 'POST',
    gatewayPath: '/api/gemini/v1beta/models/bench.gemini-sse:streamGenerateContent?alt=sse',
    upstreamPath: `/gemini-sse/${GEMINI_UP}:streamGenerateContent?alt=sse`,
    clientFormat: 'gemini-sse', upstreamFormat: 'gemini-sse', body: 'gemini-stream.json',
    drip: {
      gatewayPath: '/api/gemini/v1beta/models/bench.gemini-drip:streamGenerateContent?alt=sse',
      upstreamPath: `/drip/gemini/${GEMINI_UP}:streamGenerateContent?alt=sse`,
    },
  },
  {
    name: 'claude-openai-json', label: 'Claude → OpenAI-compat JSON (transl.)', kind: 'translated', stream: false, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/openai-json/v1/chat/completions',
    clientFormat: 'anthropic-json', upstreamFormat: 'openai-json', body: 'claude-openai-json.json', passthroughRef: 'claude-anthropic-json',
  },
  {
    name: 'claude-openai-sse', label: 'Claude → OpenAI-compat SSE (transl.)', kind: 'translated', stream: true, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/openai-sse/v1/chat/completions',
    clientFormat: 'anthropic-sse', upstreamFormat: 'openai-sse', body: 'claude-openai-sse.json', passthroughRef: 'claude-anthropic-sse',
    drip: { gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/drip/openai/v1/chat/completions', model: 'bench.oss-drip' },
  },
  {
    name: 'claude-gemini-sse', label: 'Claude → Gemini SSE (transl.)', kind: 'translated', stream: true, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: `/gemini-sse/${GEMINI_UP}:streamGenerateContent?alt=sse`,
    // Compared with the Gemini passthrough of the same upstream answer.
    clientFormat: 'anthropic-sse', upstreamFormat: 'gemini-sse', body: 'claude-gemini-sse.json', passthroughRef: 'gemini-gemini-sse',
    drip: { gatewayPath: '/api/anthropic/v1/messages', upstreamPath: `/drip/gemini/${GEMINI_UP}:streamGenerateContent?alt=sse`, model: 'bench.gemini-drip' },
  },
  {
    name: 'gemini-anthropic-json', label: 'Gemini → Anthropic JSON (transl.)', kind: 'translated', stream: false, method: 'POST',
    gatewayPath: '/api/gemini/v1beta/models/bench.claude-json:generateContent', upstreamPath: '/anthropic-json/v1/messages',
    // No Gemini JSON passthrough is measured: the JSON passthrough of the same upstream answer is.
    clientFormat: 'gemini-json', upstreamFormat: 'anthropic-json', body: 'gemini-generate.json', passthroughRef: 'claude-anthropic-json',
  },
  {
    name: 'gemini-anthropic-sse', label: 'Gemini → Anthropic SSE (transl.)', kind: 'translated', stream: true, method: 'POST',
    gatewayPath: '/api/gemini/v1beta/models/bench.claude-sse:streamGenerateContent?alt=sse', upstreamPath: '/anthropic-sse/v1/messages',
    clientFormat: 'gemini-sse', upstreamFormat: 'anthropic-sse', body: 'gemini-stream.json', passthroughRef: 'gemini-gemini-sse',
    drip: {
      gatewayPath: '/api/gemini/v1beta/models/bench.claude-drip:streamGenerateContent?alt=sse',
      upstreamPath: '/drip/anthropic/v1/messages',
    },
  },
  {
    name: 'claude-anthropic-large', label: 'Claude → Anthropic SSE, 100K-token prompt (pass)', kind: 'passthrough', stream: true, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/anthropic-sse/v1/messages',
    clientFormat: 'anthropic-sse', upstreamFormat: 'anthropic-sse', body: 'claude-large.json', bodyModel: 'bench.claude-sse', large: true,
  },
  {
    name: 'claude-openai-large', label: 'Claude → OpenAI-compat SSE, 100K-token prompt (transl.)', kind: 'translated', stream: true, method: 'POST',
    gatewayPath: '/api/anthropic/v1/messages', upstreamPath: '/openai-sse/v1/chat/completions',
    clientFormat: 'anthropic-sse', upstreamFormat: 'openai-sse', body: 'claude-large.json', bodyModel: 'bench.oss-sse', large: true,
    passthroughRef: 'claude-anthropic-large',
  },
];

/**
 * The scenarios named, or else every one but the large-prompt ones; `large` adds those. They are
 * asked for by name or with `--large` because their bodies (~400 KB per request in flight) raise
 * a run's peak RSS past what the targets set for the ~1 KB scenarios, on the bare proxies too.
 */
export function pickScenarios(names: string[] | undefined, large = false): Scenario[] {
  const picked = names?.length ? pickNamed(names) : SCENARIOS.filter((s) => !s.large);
  return large ? [...picked, ...SCENARIOS.filter((s) => s.large && !picked.includes(s))] : picked;
}

function pickNamed(names: string[]): Scenario[] {
  const unknown = names.filter((n) => !SCENARIOS.some((s) => s.name === n));
  if (unknown.length) throw new Error(`unknown scenario(s): ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.name).join(', ')}`);
  return SCENARIOS.filter((s) => names.includes(s.name));
}
