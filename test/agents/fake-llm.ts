import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A tiny scripted "model" behind three real upstream wire formats, for driving real coding agents
 * (Claude Code, Gemini CLI) through the gateway without internet:
 *
 * - `{url}/anthropic`: Anthropic Messages (`/v1/messages` JSON or SSE with named events, `/v1/messages/count_tokens`, `/v1/models`)
 * - `{url}/openai/v1`: OpenAI chat completions (JSON or SSE with `reasoning` and `tool_calls` deltas, `[DONE]`)
 * - `{url}/gemini`: Gemini `/v1beta/models/{m}:generateContent`, `:streamGenerateContent?alt=sse`, `:countTokens`
 *
 * Script: a prompt asking to "list files" gets a short preamble and a parallel call of the first two
 * listing tools the agent actually offered (Bash + Glob for Claude Code, list_directory + glob for
 * Gemini CLI); once tool results are in the history, the answer names the alphabetically first file
 * in them. "load the X tool" gets a ToolSearch call for X (Claude Code's tool search), answered
 * with "X is loaded." once its find comes back. "search the web for Q" gets a WebSearch call,
 * after a ToolSearch for it while it is not declared yet (Claude Code defers it, and runs the
 * search as a side call with Anthropic's web_search server tool); the Gemini surface answers a request with `googleSearch` as Google does, with text and
 * groundingMetadata (queries, pages, supports) on the last chunk, the Anthropic surface a request
 * with a `web_search_*` tool with Claude's search blocks and cited text; the answer after the
 * search's results names the first page's title. Requests asking for JSON (titles, checks) get a value built from their schema; anything
 * else gets a short text. Thinking is answered the way each provider does (Anthropic signed thinking
 * blocks, signature-only with `display: "omitted"`; Gemini thought parts and thoughtSignatures, ids on
 * Gemini 3 calls; gpt-oss `reasoning` deltas), and each surface refuses the request shapes real
 * clients trip over (see `check*`), so a translation bug shows up as the provider's 400. One rule is
 * the gateway's contract rather than a documented provider 400: id-less function responses must
 * follow call order, because Gemini pairs them by position (protocol digest C4). Gemini 3 refuses
 * functionCall / functionResponse ids it did not issue (the digest's C4 rule; the exact wording of
 * the real error is not documented).
 */

export type UpstreamKind = 'anthropic' | 'openai' | 'gemini';

export interface FakeCall {
  kind: UpstreamKind;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: any;
  /** What the fake answered: `tool:<name>+<name>`, `text`, `json`, `count`, `list`, `limited:<seconds>` or `error:<status> <message>`. */
  answer?: string;
  /** Date.now() when the request arrived. */
  at: number;
}

export interface FakeLlm {
  url: string;
  calls: FakeCall[];
  /** Tool-result texts that came back in conversations (each distinct text once). */
  toolResults: string[];
  /** The final answers the fake gave after seeing a tool result. */
  finalAnswers: string[];
  /** Requests the fake refused as the real provider would, with the reason. */
  rejections: string[];
  /** The next model call (not a token count) gets the provider's 429, naming a wait of `seconds`. */
  limitNext(seconds: number): void;
  close(): Promise<void>;
}

/** One conversation turn in a kind-neutral form. */
interface Turn {
  role: 'user' | 'assistant';
  text: string;
  calls: Array<{ id?: string; name: string; signature?: string }>;
  results: Array<{ id?: string; name?: string; text: string }>;
}

interface Conversation {
  system: string;
  turns: Turn[];
  tools: Array<{ name: string; schema: any }>;
  /** A JSON schema the answer must follow, when the request asks for structured output. */
  jsonSchema?: any;
  wantsJson: boolean;
}

interface Decision {
  /** `tool:<names>`, `text` or `json`: what the call answered, for FakeCall.answer. */
  label: string;
  /** Visible text (a preamble when there are calls). */
  text: string;
  calls: Array<{ name: string; args: Record<string, unknown> }>;
}

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function startFakeLlm(): Promise<FakeLlm> {
  const calls: FakeCall[] = [];
  const toolResults: string[] = [];
  const finalAnswers: string[] = [];
  const rejections: string[] = [];
  const issued = { anthropic: new Set<string>(), gemini: new Set<string>(), geminiCalls: new Set<string>(), seq: 0 };
  let limited: number | undefined;

  const think = (conv: Conversation): Decision => {
    for (const turn of conv.turns) for (const r of turn.results) if (!toolResults.includes(r.text)) toolResults.push(r.text);
    const decision = decide(conv);
    if (!decision.calls.length && conv.turns.at(-1)?.results.length) finalAnswers.push(decision.text);
    return decision;
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const raw = await readBody(req);
    let body: any;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = raw;
    }
    const kind = url.pathname.split('/')[1] as UpstreamKind;
    const call: FakeCall = { kind, method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body, at: Date.now() };
    calls.push(call);
    if (limited !== undefined && call.method === 'POST' && !/count/i.test(url.pathname)) {
      call.answer = `limited:${limited}`;
      sendRateLimit(res, kind, limited);
      limited = undefined;
      return;
    }
    try {
      if (kind === 'anthropic') call.answer = anthropic(url, call, res);
      else if (kind === 'openai') call.answer = openai(url, call, res);
      else if (kind === 'gemini') call.answer = gemini(url, call, res);
      else throw new Refusal(404, `no such upstream: ${url.pathname}`);
    } catch (err) {
      const status = err instanceof Refusal ? err.status : 500;
      const message = err instanceof Error ? err.message : String(err);
      call.answer = `error:${status} ${message}`;
      rejections.push(`${kind} ${url.pathname}: ${status} ${message}`);
      sendJson(res, status, errorBody(kind, status, message));
    }
  });

  // ---------------------------------------------------------------- Anthropic Messages
  function anthropic(url: URL, call: FakeCall, res: ServerResponse): string {
    const path = url.pathname.slice('/anthropic'.length);
    if (call.method === 'GET' && path.startsWith('/v1/models')) {
      sendJson(res, 200, { data: [{ type: 'model', id: 'claude-fake', display_name: 'Fake', created_at: '2025-01-01T00:00:00Z' }], has_more: false, first_id: 'claude-fake', last_id: 'claude-fake' });
      return 'list';
    }
    const body = call.body;
    if (path === '/v1/messages/count_tokens') {
      sendJson(res, 200, { input_tokens: estimate(body) });
      return 'count';
    }
    if (path !== '/v1/messages' || call.method !== 'POST') throw new Refusal(404, `Not found: ${path}`);
    checkAnthropic(body, call.headers, issued.anthropic);
    if ((body.tools ?? []).some((t: any) => /^web_search_\d{8}$/.test(t.type ?? ''))) return searchWeb(body, res, ++issued.seq);
    const decision = think(readAnthropic(body));
    const seq = ++issued.seq;
    const thinking = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
    const signature = `c2lnLWFudGhyb3BpYy0${seq}`;
    if (thinking) issued.anthropic.add(signature);
    const blocks: any[] = [];
    if (thinking) blocks.push({ type: 'thinking', thinking: body.thinking?.display === 'omitted' ? '' : 'The user wants files listed.', signature });
    if (decision.text) blocks.push({ type: 'text', text: decision.text });
    decision.calls.forEach((c, i) => blocks.push({ type: 'tool_use', id: `toolu_fake${seq}_${i}`, name: c.name, input: c.args }));
    const stop = decision.calls.length ? 'tool_use' : 'end_turn';
    const usage = { input_tokens: estimate(body), output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const message = { id: `msg_fake${seq}`, type: 'message', role: 'assistant', model: body.model, content: blocks, stop_reason: stop, stop_sequence: null, usage };
    if (!body.stream) {
      sendJson(res, 200, message);
      return decision.label;
    }
    const events: Array<[string, unknown]> = [['message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } }]];
    const delta = (index: number, d: unknown) => events.push(['content_block_delta', { type: 'content_block_delta', index, delta: d }]);
    blocks.forEach((block, index) => {
      if (block.type === 'thinking') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } }]);
        if (block.thinking) delta(index, { type: 'thinking_delta', thinking: block.thinking });
        delta(index, { type: 'signature_delta', signature: block.signature });
      } else if (block.type === 'tool_use') {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
        for (const piece of ['', ...split(JSON.stringify(block.input))]) delta(index, { type: 'input_json_delta', partial_json: piece });
      } else {
        events.push(['content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
        for (const piece of split(block.text)) delta(index, { type: 'text_delta', text: piece });
      }
      if (index === 0) events.push(['ping', { type: 'ping' }]);
      events.push(['content_block_stop', { type: 'content_block_stop', index }]);
    });
    events.push(['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 12 } }]);
    events.push(['message_stop', { type: 'message_stop' }]);
    sendSse(res, events.map(([event, data]) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
    return decision.label;
  }

  // ---------------------------------------------------------------- OpenAI chat completions
  function openai(url: URL, call: FakeCall, res: ServerResponse): string {
    const path = url.pathname.slice('/openai/v1'.length);
    if (call.method === 'GET' && path === '/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'openai/gpt-oss-120b', object: 'model', created: 1, owned_by: 'fake' }] });
      return 'list';
    }
    if (path !== '/chat/completions' || call.method !== 'POST') throw new Refusal(404, `Unknown request URL: ${url.pathname}`);
    const body = call.body;
    checkOpenAI(body);
    const decision = think(readOpenAI(body));
    const seq = ++issued.seq;
    // gpt-oss reasons unasked and Groq returns it as `reasoning`.
    const reasoning = 'User asks; answer briefly.';
    const finish = decision.calls.length ? 'tool_calls' : 'stop';
    const usage = { prompt_tokens: estimate(body), completion_tokens: 12, total_tokens: estimate(body) + 12 };
    const base = { id: `chatcmpl-fake${seq}`, object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model, system_fingerprint: 'fp_fake' };
    const toolCalls = decision.calls.map((c, i) => ({ id: `call_fake${seq}_${i}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } }));
    if (!body.stream) {
      const message: any = { role: 'assistant', content: decision.text || null, reasoning };
      if (toolCalls.length) message.tool_calls = toolCalls;
      sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish, logprobs: null }], usage });
      return decision.label;
    }
    const chunk = (delta: unknown, finish_reason: string | null = null) => ({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason }] });
    const chunks: unknown[] = [chunk({ role: 'assistant', content: null, reasoning: '' })];
    for (const piece of split(reasoning)) chunks.push(chunk({ reasoning: piece }));
    for (const piece of decision.text ? split(decision.text) : []) chunks.push(chunk({ content: piece }));
    toolCalls.forEach((c, index) => {
      chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
      for (const piece of split(c.function.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    chunks.push(chunk({}, finish));
    if (body.stream_options?.include_usage) chunks.push({ ...base, choices: [], usage });
    sendSse(res, [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n']);
    return decision.label;
  }

  // ---------------------------------------------------------------- Gemini generateContent
  function gemini(url: URL, call: FakeCall, res: ServerResponse): string {
    const match = /^\/gemini\/(v1beta|v1)\/models(?:\/([^:]+)(?::(\w+))?)?$/.exec(url.pathname);
    if (!match) throw new Refusal(404, `Not found: ${url.pathname}`);
    const [, , model, action] = match;
    if (call.method === 'GET') {
      const entry = { name: `models/${model ?? 'gemini-fake'}`, displayName: 'Fake', inputTokenLimit: 1_048_576, outputTokenLimit: 65_536, supportedGenerationMethods: ['generateContent', 'countTokens'] };
      sendJson(res, 200, model ? entry : { models: [entry] });
      return 'list';
    }
    const body = call.body;
    if (action === 'countTokens') {
      sendJson(res, 200, { totalTokens: estimate(body) });
      return 'count';
    }
    if (action !== 'generateContent' && action !== 'streamGenerateContent') throw new Refusal(404, `Method not found: ${action}`);
    checkGemini(model!, body, issued.gemini, issued.geminiCalls);
    if ((body.tools ?? []).some((t: any) => t.googleSearch)) return searchGoogle(url, action!, model!, body, res, ++issued.seq);
    const decision = think(readGemini(body));
    const seq = ++issued.seq;
    const signature = `c2lnLWdlbWluaS0${seq}`;
    issued.gemini.add(signature);
    const gemini3 = /gemini-3/.test(model!);
    const thought = body.generationConfig?.thinkingConfig?.includeThoughts === true ? [{ text: '**Planning**\n\nThe user wants something small.', thought: true }] : [];
    // Gemini 3 names every call and signs the first call of a step; 2.5 leaves the id out.
    const callParts = decision.calls.map((c, i) => {
      const id = gemini3 ? `fc-fake${seq}-${i}` : undefined;
      if (id) issued.geminiCalls.add(id);
      return { functionCall: { ...(id ? { id } : {}), name: c.name, args: c.args }, ...(i === 0 ? { thoughtSignature: signature } : {}) };
    });
    const usageMetadata = { promptTokenCount: estimate(body), candidatesTokenCount: 12, totalTokenCount: estimate(body) + 12 };
    const envelope = (parts: unknown[], finishReason?: string) => ({
      candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
      usageMetadata,
      modelVersion: model,
      responseId: `resp-fake${seq}`,
    });
    if (action === 'generateContent') {
      const text = decision.text ? [{ text: decision.text, ...(callParts.length ? {} : { thoughtSignature: signature }) }] : [];
      sendJson(res, 200, envelope([...thought, ...text, ...callParts], 'STOP'));
      return decision.label;
    }
    if (url.searchParams.get('alt') !== 'sse') throw new Refusal(400, 'this fake only streams with alt=sse');
    const chunks: unknown[] = thought.length ? [envelope(thought)] : [];
    for (const piece of decision.text ? split(decision.text) : []) chunks.push(envelope([{ text: piece }]));
    chunks.push(envelope(callParts.length ? callParts : [{ text: '', thoughtSignature: signature }], 'STOP'));
    sendSse(res, chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`));
    return decision.label;
  }

  /**
   * Grounding with Google Search as the Gemini API answers it: the answer's text, and on the
   * candidate (in a stream: on the last chunk, with the finish) the queries run, the pages as
   * Google's redirect links titled by site, and which pages support which part of the text.
   */
  function searchGoogle(url: URL, action: string, model: string, body: any, res: ServerResponse, seq: number): string {
    const query = /query:\s*(.+)$/im.exec(readGemini(body).turns.at(-1)?.text ?? '')?.[1]?.trim() ?? 'unknown';
    const text = `${SEARCH_ANSWER} (searched: ${query})`;
    const groundingMetadata = {
      searchEntryPoint: { renderedContent: `<div class="container"><a class="chip" href="https://www.google.com/search?q=${encodeURIComponent(query)}">${query}</a></div>` },
      groundingChunks: SEARCH_PAGES.map((title, i) => ({ web: { uri: `https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ${seq}x${i}`, title } })),
      groundingSupports: [{ segment: { endIndex: Buffer.byteLength(SEARCH_ANSWER), text: SEARCH_ANSWER }, groundingChunkIndices: [0, 1] }],
      webSearchQueries: [query],
    };
    const usageMetadata = { promptTokenCount: estimate(body), candidatesTokenCount: 9, toolUsePromptTokenCount: 120, totalTokenCount: estimate(body) + 129 };
    const candidate = (parts: unknown[], last: boolean) => ({ content: { role: 'model', parts }, ...(last ? { finishReason: 'STOP', groundingMetadata } : {}), index: 0 });
    const envelope = (parts: unknown[], last: boolean) => ({ candidates: [candidate(parts, last)], usageMetadata, modelVersion: model, responseId: `resp-search${seq}` });
    if (action === 'generateContent') {
      sendJson(res, 200, envelope([{ text }], true));
      return 'search';
    }
    if (url.searchParams.get('alt') !== 'sse') throw new Refusal(400, 'this fake only streams with alt=sse');
    const pieces = split(text);
    sendSse(res, pieces.map((piece, i) => `data: ${JSON.stringify(envelope([{ text: piece }], i === pieces.length - 1))}\r\n\r\n`));
    return 'search';
  }

  /**
   * Claude's web search as the Messages API answers it: a preamble, the server_tool_use and its
   * web_search_tool_result (pages with encrypted content), then text blocks citing the pages.
   */
  function searchWeb(body: any, res: ServerResponse, seq: number): string {
    if (body.stream) throw new Refusal(400, 'this fake searches the web only without streaming');
    const query = readAnthropic(body).turns.at(-1)?.text.trim() || 'unknown';
    const id = `srvtoolu_fake${seq}`;
    const pages = SEARCH_PAGES.map((site, i) => ({ url: `https://www.${site}/euro-2024-${i}`, title: site }));
    const content = [
      { type: 'text', text: 'I will search for that.' },
      { type: 'server_tool_use', id, name: 'web_search', input: { query } },
      { type: 'web_search_tool_result', tool_use_id: id, content: pages.map((p, i) => ({ type: 'web_search_result', ...p, encrypted_content: `RW5jcnlwdGVk${seq}x${i}`, page_age: 'July 15, 2024' })) },
      { type: 'text', text: SEARCH_ANSWER, citations: [{ type: 'web_search_result_location', ...pages[0], encrypted_index: `RW5jSW5kZXg${seq}`, cited_text: 'Spain are the champions of Europe.' }] },
    ];
    const usage = { input_tokens: estimate(body), output_tokens: 40, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 1 } };
    sendJson(res, 200, { id: `msg_fake${seq}`, type: 'message', role: 'assistant', model: body.model, content, stop_reason: 'end_turn', stop_sequence: null, usage });
    return 'search';
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    toolResults,
    finalAnswers,
    rejections,
    limitNext: (seconds) => void (limited = seconds),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// ==================================================================== the "model"

/** What the fake's Google Search finds: its answer's text and the sites of its pages. */
export const SEARCH_ANSWER = 'Spain won Euro 2024, beating England 2-1 in the final.';
export const SEARCH_PAGES = ['uefa.com', 'bbc.co.uk'];

/** Listing tools in order of preference; the first two offered are called together (a parallel step). */
const LISTING_TOOLS = ['Bash', 'Glob', 'LS', 'list_directory', 'glob', 'run_shell_command'];

function decide(conv: Conversation): Decision {
  const last = conv.turns.at(-1);
  const say = (text: string): Decision => ({ label: 'text', text, calls: [] });
  if (conv.wantsJson) return { label: 'json', text: JSON.stringify(fromSchema(conv.jsonSchema ?? { type: 'object' }, '')), calls: [] };
  if (last?.role === 'user' && last.results.length) {
    const listing = last.results.map((r) => r.text).join('\n');
    // Claude Code's WebSearch result: `Web search results for query: "…"`, the links as JSON, then the text.
    const searched = /Web search results for query: "[^"]*"[\s\S]*?"title":"([^"]+)"/.exec(listing);
    if (searched) return say(`The first page found was ${searched[1]}.`);
    // Gemini CLI's google_web_search result: the text with citation marks, then `Sources:` numbered.
    const sourced = /Web search results for "[^"]*":[\s\S]*?Sources:\n\[1\] (.+?) \(/.exec(listing);
    if (sourced) return say(`The first page found was ${sourced[1]}.`);
    const search = webSearchStep(conv);
    if (search) return search;
    // Tool search's find: a reference (Anthropic) or the definition as text (anywhere else).
    const found = /tool_reference:(\w+)|<function>\{.*?"name":"(\w+)"/.exec(listing);
    if (found) return say(`${found[1] ?? found[2]} is loaded.`);
    const name = pickFileName(listing);
    return say(name ? `One file in this folder is ${name}.` : `The tool said: ${listing.slice(0, 80)}`);
  }
  const wanted = last?.role === 'user' ? /load the (\w+) tool/i.exec(last.text)?.[1] : undefined;
  if (wanted && conv.tools.some((t) => t.name === 'ToolSearch')) {
    return { label: 'tool:ToolSearch', text: `I will load ${wanted}.`, calls: [{ name: 'ToolSearch', args: { query: `select:${wanted}` } }] };
  }
  const search = last?.role === 'user' ? webSearchStep(conv) : undefined;
  if (search) return search;
  if (last?.role === 'user' && /list (the )?files/i.test(last.text)) {
    const offered = LISTING_TOOLS.flatMap((name) => conv.tools.filter((t) => t.name === name)).slice(0, 2);
    const calls = offered.map((t) => ({ name: t.name, args: listingArgs(t.name, t.schema, conv) }));
    if (calls.length) return { label: `tool:${calls.map((c) => c.name).join('+')}`, text: 'I will list the files.', calls };
  }
  if (/title/i.test(conv.system)) return say('Listing files');
  return say('Hello from the fake model.');
}

/**
 * "search the web for Q": a WebSearch (Claude Code) or google_web_search (Gemini CLI) call once
 * the tool is declared; before that (Claude Code defers it) a ToolSearch for it.
 */
function webSearchStep(conv: Conversation): Decision | undefined {
  const query = conv.turns.map((t) => (t.role === 'user' ? /search the web for (.+?)(?: and |$)/im.exec(t.text)?.[1] : undefined)).find(Boolean);
  if (!query) return undefined;
  for (const name of ['WebSearch', 'google_web_search']) {
    if (conv.tools.some((t) => t.name === name)) return { label: `tool:${name}`, text: 'I will search the web.', calls: [{ name, args: { query } }] };
  }
  if (conv.tools.some((t) => t.name === 'ToolSearch')) return { label: 'tool:ToolSearch', text: 'I will load WebSearch.', calls: [{ name: 'ToolSearch', args: { query: 'select:WebSearch' } }] };
  return undefined;
}

function listingArgs(name: string, schema: any, conv: Conversation): Record<string, unknown> {
  if (name === 'Bash') return { command: 'ls', description: 'List files in the current folder' };
  if (name === 'run_shell_command') return { command: 'ls', description: 'List files in the current folder' };
  if (name === 'Glob' || name === 'glob') return { pattern: '*' };
  const cwd = /working (?:in the )?directory(?: is)?:?\s*(\/\S+?)[\s`'".,]*(?:\n|$)/i.exec(conv.system + '\n' + conv.turns.map((t) => t.text).join('\n'))?.[1] ?? '.';
  const args: Record<string, unknown> = {};
  for (const key of schema?.required ?? Object.keys(schema?.properties ?? {}).slice(0, 1)) {
    if (/path|dir/i.test(key)) args[key] = cwd;
  }
  return args;
}

/** The alphabetically first word that looks like a file name (has an extension), skipping paths; deterministic whatever order tools list in. */
function pickFileName(text: string): string | undefined {
  return [...text.matchAll(/(?<![\w/.-])[A-Za-z0-9_-]+\.[A-Za-z0-9]{1,8}(?![\w/-])/g)].map((m) => m[0]).sort()[0];
}

function fromSchema(schema: any, key: string): unknown {
  const type = String(Array.isArray(schema?.type) ? schema.type[0] : (schema?.type ?? 'object')).toLowerCase();
  if (Array.isArray(schema?.enum)) return schema.enum.includes('user') ? 'user' : schema.enum[0];
  if (type === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, sub] of Object.entries(schema?.properties ?? {})) out[k] = fromSchema(sub, k);
    return out;
  }
  if (type === 'array') return [];
  if (type === 'boolean') return false;
  if (type === 'integer' || type === 'number') return 0;
  return key === 'title' ? 'Listing files' : 'ok';
}

// ==================================================================== readers (wire → Conversation)

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  // A tool_reference is what Anthropic's tool search expands into the named tool's definition.
  return content.map((b: any) => (typeof b === 'string' ? b : b?.type === 'tool_reference' ? `tool_reference:${b.tool_name}` : b?.type === 'text' || b?.text !== undefined ? (b.text ?? '') : '')).join('\n');
}

/** The strings inside a JSON value, so a quoted listing reads like the tool printed it. */
function stringLeaves(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringLeaves);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringLeaves);
  return value === undefined ? [] : [String(value)];
}

function readAnthropic(body: any): Conversation {
  const turns: Turn[] = (body.messages ?? []).map((m: any) => {
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
    return {
      role: m.role,
      text: blocks.filter((b: any) => b.type === 'text').map((b: any) => b.text).join('\n'),
      calls: blocks.filter((b: any) => b.type === 'tool_use').map((b: any) => ({ id: b.id, name: b.name })),
      results: blocks.filter((b: any) => b.type === 'tool_result').map((b: any) => ({ id: b.tool_use_id, text: textOf(b.content) })),
    };
  });
  const schema = body.output_config?.format?.schema ?? body.output_format?.schema;
  return { system: textOf(body.system), turns, tools: (body.tools ?? []).map((t: any) => ({ name: t.name, schema: t.input_schema })), jsonSchema: schema, wantsJson: schema !== undefined };
}

function readOpenAI(body: any): Conversation {
  const turns: Turn[] = [];
  let system = '';
  for (const m of body.messages ?? []) {
    if (m.role === 'system' || m.role === 'developer') system += textOf(m.content) + '\n';
    else if (m.role === 'tool') {
      const prev = turns.at(-1);
      const result = { id: m.tool_call_id, text: textOf(m.content) };
      if (prev?.role === 'user' && prev.results.length) prev.results.push(result);
      else turns.push({ role: 'user', text: '', calls: [], results: [result] });
    } else {
      turns.push({ role: m.role === 'assistant' ? 'assistant' : 'user', text: textOf(m.content), calls: (m.tool_calls ?? []).map((c: any) => ({ id: c.id, name: c.function?.name })), results: [] });
    }
  }
  const format = body.response_format;
  const schema = format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
  return { system, turns, tools: (body.tools ?? []).map((t: any) => ({ name: t.function?.name, schema: t.function?.parameters })), jsonSchema: schema, wantsJson: format?.type === 'json_schema' || format?.type === 'json_object' };
}

function readGemini(body: any): Conversation {
  const turns: Turn[] = (body.contents ?? []).map((c: any) => {
    const parts = c.parts ?? [];
    return {
      role: c.role === 'model' ? 'assistant' : 'user',
      text: parts.filter((p: any) => typeof p.text === 'string' && !p.thought).map((p: any) => p.text).join('\n'),
      calls: parts.filter((p: any) => p.functionCall).map((p: any) => ({ id: p.functionCall.id, name: p.functionCall.name, signature: p.thoughtSignature })),
      results: parts.filter((p: any) => p.functionResponse).map((p: any) => ({ id: p.functionResponse.id, name: p.functionResponse.name, text: stringLeaves(p.functionResponse.response).join('\n') })),
    };
  });
  const decls = (body.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []);
  const config = body.generationConfig ?? {};
  const schema = config.responseJsonSchema ?? config.responseSchema;
  return {
    system: textOf(body.systemInstruction?.parts),
    turns,
    tools: decls.map((d: any) => ({ name: d.name, schema: d.parametersJsonSchema ?? d.parameters })),
    jsonSchema: schema,
    wantsJson: config.responseMimeType === 'application/json',
  };
}

// ==================================================================== provider rules

/** Rules the Messages API enforces that translated or forwarded requests trip over. */
function checkAnthropic(body: any, headers: FakeCall['headers'], signatures: Set<string>): void {
  if (typeof body?.model !== 'string') throw new Refusal(400, 'model: Field required');
  if (typeof body.max_tokens !== 'number') throw new Refusal(400, 'max_tokens: Field required');
  if (body.temperature !== undefined && body.top_p !== undefined) {
    throw new Refusal(400, '`temperature` and `top_p` cannot both be specified for this model. Please use only one.');
  }
  const betas = String(headers['anthropic-beta'] ?? '');
  if (body.context_management !== undefined && !betas.includes('context-management-')) throw new Refusal(400, 'context_management: Extra inputs are not permitted');
  const messages: any[] = body.messages ?? [];
  const toolNames = new Set((body.tools ?? []).map((t: any) => t.name));
  messages.forEach((m, i) => {
    if (Array.isArray(m.content) && m.content.length === 0) throw new Refusal(400, `messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
    for (const result of Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_result' && Array.isArray(b.content)) : []) {
      const missing = result.content.find((c: any) => c.type === 'tool_reference' && !toolNames.has(c.tool_name));
      if (missing) throw new Refusal(400, `Tool reference '${missing.tool_name}' not found in available tools`);
    }
    if (m.role !== 'assistant' || !Array.isArray(m.content)) return;
    const uses = m.content.filter((b: any) => b.type === 'tool_use').map((b: any) => b.id);
    for (const b of m.content) {
      if (b.type === 'thinking' && !signatures.has(b.signature)) throw new Refusal(400, `messages.${i}.content: Invalid \`signature\` in \`thinking\` block`);
    }
    if (!uses.length) return;
    const next = messages[i + 1];
    const results = Array.isArray(next?.content) ? next.content.filter((b: any) => b.type === 'tool_result').map((b: any) => b.tool_use_id) : [];
    if (uses.some((id: string) => !results.includes(id)) || results.length !== new Set(results).size) {
      throw new Refusal(400, `messages.${i + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${uses.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`);
    }
    const thinkingOn = body.thinking?.type === 'enabled' || body.thinking?.type === 'adaptive';
    if (thinkingOn && i === messages.length - 2 && m.content[0]?.type !== 'thinking' && m.content[0]?.type !== 'redacted_thinking') {
      throw new Refusal(400, `messages.${i}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${m.content[0]?.type}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`);
    }
  });
}

/**
 * A rate limit as each provider sends it: Anthropic and OpenAI name the wait in `retry-after`;
 * Gemini in the body, as a google.rpc.RetryInfo (protocol digests A9, B8 and Gemini A8).
 */
function sendRateLimit(res: ServerResponse, kind: UpstreamKind, seconds: number): void {
  const body =
    kind === 'anthropic'
      ? { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }
      : kind === 'openai'
        ? { error: { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' } }
        : { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` }] } };
  res.writeHead(429, kind === 'gemini' ? { 'content-type': 'application/json' } : { 'content-type': 'application/json', 'retry-after': String(seconds) });
  res.end(JSON.stringify(body));
}

/** Rules of a strict OpenAI-compatible host (Groq-like: unknown message properties are refused). */
function checkOpenAI(body: any): void {
  if (typeof body?.model !== 'string') throw new Refusal(400, "'model' : property 'model' is missing");
  // api.openai.com's limit by Bifrost's account (OpenRouter's is 128): Claude Code's metadata.user_id is ~150 characters.
  if (typeof body.user === 'string' && body.user.length > 64) throw new Refusal(400, `Invalid 'user': string too long. Expected a string with maximum length 64, but got a string with length ${body.user.length} instead.`);
  const allowed: Record<string, string[]> = {
    system: ['role', 'content', 'name'],
    developer: ['role', 'content', 'name'],
    user: ['role', 'content', 'name'],
    assistant: ['role', 'content', 'name', 'tool_calls', 'refusal'],
    tool: ['role', 'content', 'tool_call_id', 'name'],
  };
  const messages: any[] = body.messages ?? [];
  messages.forEach((m, i) => {
    const keys = allowed[m.role];
    if (!keys) throw new Refusal(400, `'messages.${i}' : discriminator property 'role' has invalid value`);
    for (const k of Object.keys(m)) if (!keys.includes(k)) throw new Refusal(400, `'messages.${i}' : for 'role:${m.role}' the following must be satisfied[('messages.${i}' : property '${k}' is unsupported)]`);
    if (m.role === 'assistant' && m.tool_calls?.length) {
      const answered = new Set<string>();
      for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) answered.add(messages[j].tool_call_id);
      for (const c of m.tool_calls) if (!answered.has(c.id)) throw new Refusal(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${c.id}`);
    }
    if (m.role === 'tool' && !messages.slice(0, i).some((p) => p.role === 'assistant' && p.tool_calls?.some((c: any) => c.id === m.tool_call_id))) {
      throw new Refusal(400, `'messages.${i}': tool message with tool_call_id ${m.tool_call_id} has no preceding tool call`);
    }
  });
}

const GEMINI_SCHEMA_KEYS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties', 'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum']);

/** Gemini API rules: OpenAPI-subset `parameters`, thinking budget range, parts, function-call pairing, Gemini 3 signatures and call ids. */
function checkGemini(model: string, body: any, signatures: Set<string>, callIds: Set<string>): void {
  const contents: any[] = body?.contents ?? [];
  if (!contents.length) throw new Refusal(400, '* GenerateContentRequest.contents: contents is not specified');
  (body.tools ?? []).forEach((t: any, i: number) =>
    (t.functionDeclarations ?? []).forEach((d: any, j: number) => {
      if (d.parameters) checkGeminiSchema(d.parameters, `tools[${i}].function_declarations[${j}].parameters`);
    }),
  );
  const budget = body.generationConfig?.thinkingConfig?.thinkingBudget;
  if (typeof budget === 'number' && /2\.5-flash/.test(model) && budget !== -1 && (budget < 0 || budget > 24576)) {
    throw new Refusal(400, 'The thinking budget is invalid. Please set a thinking budget between 0 and 24576.');
  }
  // Gemini 3 validates signatures on the function-call steps after the last ordinary user message.
  let current = 0;
  contents.forEach((c, i) => {
    if (c.role === 'user' && (c.parts ?? []).some((p: any) => p.text !== undefined)) current = i;
  });
  contents.forEach((c, i) => {
    if (c.role !== 'user' && c.role !== 'model') throw new Refusal(400, `Please use a valid role: user, model.`);
    if (!Array.isArray(c.parts) || c.parts.length === 0) throw new Refusal(400, `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`);
    const calls = c.parts.filter((p: any) => p.functionCall);
    if (!calls.length) return;
    const responses = (contents[i + 1]?.parts ?? []).filter((p: any) => p.functionResponse);
    if (responses.length !== calls.length && i + 1 < contents.length) {
      throw new Refusal(400, 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
    if (/gemini-3/.test(model)) {
      // Gemini 3 only knows the ids it issued (protocol digest C4): another vendor's `toolu_…` is a 400.
      calls.forEach((p: any, k: number) => {
        const id = p.functionCall.id;
        if (id !== undefined && !callIds.has(id)) throw new Refusal(400, `contents[${i}].parts[${k}]: functionCall.id "${id}" was not issued by this model`);
      });
      responses.forEach((r: any, k: number) => {
        const id = r.functionResponse.id;
        if (id !== undefined && !callIds.has(id)) throw new Refusal(400, `contents[${i + 1}].parts[${k}]: functionResponse.id "${id}" does not match functionCall.id`);
      });
      for (const r of responses) {
        const id = r.functionResponse.id;
        if (id !== undefined && !calls.some((p: any) => p.functionCall.id === id)) throw new Refusal(400, `contents[${i + 1}]: functionResponse.id does not match functionCall.id`);
      }
    }
    // Without ids, Gemini pairs responses with calls by position (protocol digest C4: results go back in call order).
    responses.forEach((r: any, k: number) => {
      if (r.functionResponse.id === undefined && r.functionResponse.name !== calls[k]?.functionCall.name) {
        throw new Refusal(400, `contents[${i + 1}].parts[${k}]: function response "${r.functionResponse.name}" is paired by position with call "${calls[k]?.functionCall.name}" (responses without ids must follow call order)`);
      }
    });
    const sig = calls[0].thoughtSignature;
    if (/gemini-3/.test(model) && i > current && !(sig && (signatures.has(sig) || sig === 'skip_thought_signature_validator'))) {
      throw new Refusal(400, `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${calls[0].functionCall.name}\` , position ${i + 1}.`);
    }
  });
}

function checkGeminiSchema(schema: any, path: string): void {
  if (!schema || typeof schema !== 'object') return;
  for (const key of Object.keys(schema)) {
    if (!GEMINI_SCHEMA_KEYS.has(key)) throw new Refusal(400, `Invalid JSON payload received. Unknown name "${key}" at '${path}': Cannot find field.`);
  }
  for (const [k, sub] of Object.entries(schema.properties ?? {})) checkGeminiSchema(sub, `${path}.properties[${k}].value`);
  if (schema.items) checkGeminiSchema(schema.items, `${path}.items`);
  (schema.anyOf ?? []).forEach((sub: any, i: number) => checkGeminiSchema(sub, `${path}.any_of[${i}]`));
}

// ==================================================================== plumbing

function estimate(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
}

/** Two or three pieces, so every answer streams as several deltas. */
function split(text: string): string[] {
  if (text.length < 4) return [text];
  const a = Math.floor(text.length / 3);
  const b = Math.floor((2 * text.length) / 3);
  return [text.slice(0, a), text.slice(a, b), text.slice(b)];
}

function errorBody(kind: UpstreamKind, status: number, message: string): unknown {
  if (kind === 'anthropic') return { type: 'error', error: { type: status === 404 ? 'not_found_error' : status >= 500 ? 'api_error' : 'invalid_request_error', message } };
  if (kind === 'openai') return { error: { message, type: 'invalid_request_error', param: null, code: null } };
  return { error: { code: status, message, status: status === 404 ? 'NOT_FOUND' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT' } };
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function sendSse(res: ServerResponse, frames: string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const frame of frames) res.write(frame);
  res.end();
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
