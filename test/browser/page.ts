/**
 * Runs in Chromium on another origin than the gateway: the three official SDKs as a web page uses
 * them (`dangerouslyAllowBrowser`), each call's outcome put on `window.__results` for the test.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';

interface PageInput {
  gateway: string;
  key: string;
}

declare global {
  interface Window {
    __input: PageInput;
    __results?: Record<string, unknown>;
  }
}

/** The SDK error classes a call may end with; names are read through them, as a bundle renames classes. */
const ERROR_CLASSES: [string, new (...args: never[]) => Error][] = [
  ['AuthenticationError', Anthropic.AuthenticationError],
  ['AuthenticationError', OpenAI.AuthenticationError],
  ['NotFoundError', Anthropic.NotFoundError],
  ['NotFoundError', OpenAI.NotFoundError],
  ['APIConnectionError', Anthropic.APIConnectionError],
  ['APIConnectionError', OpenAI.APIConnectionError],
  ['TypeError', TypeError],
];

async function run({ gateway, key }: PageInput): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const step = async (name: string, call: () => Promise<unknown>) => {
    try {
      results[name] = await call();
    } catch (err) {
      const e = err as { message?: string; status?: number; requestID?: string };
      const failed = ERROR_CLASSES.find(([, type]) => err instanceof type)?.[0] ?? String(err);
      results[name] = { failed, message: e.message, status: e.status, requestID: e.requestID };
    }
  };
  const anthropic = new Anthropic({ apiKey: key, baseURL: `${gateway}/api/anthropic`, dangerouslyAllowBrowser: true, maxRetries: 0 });
  await step('anthropic.create', async () => {
    const { data, response } = await anthropic.messages.create({ model: 'acme.claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] }).withResponse();
    return { content: data.content, requestId: response.headers.get('request-id') };
  });
  await step('anthropic.stream', async () => {
    const stream = anthropic.messages.stream({ model: 'acme.claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] });
    const message = await stream.finalMessage();
    return { stop: message.stop_reason, content: message.content };
  });
  await step('anthropic.badKey', () =>
    new Anthropic({ apiKey: 'sk-wrong-key-1234', baseURL: `${gateway}/api/anthropic`, dangerouslyAllowBrowser: true, maxRetries: 0 }).messages.create({
      model: 'acme.claude-sonnet-4-5',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'x' }],
    }),
  );
  await step('anthropic.translated', async () => {
    const message = await anthropic.messages.create({ model: 'acme.gpt-oss-120b', max_tokens: 64, messages: [{ role: 'user', content: 'Say hi' }] });
    return message.content.map((block) => block.type);
  });
  const openai = new OpenAI({ apiKey: key, baseURL: `${gateway}/api/openai/v1`, dangerouslyAllowBrowser: true, maxRetries: 0 });
  await step('openai.models', async () => (await openai.models.list()).data.map((model) => model.id));
  await step('openai.unknownModel', () => openai.models.retrieve('nope'));
  const genai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: `${gateway}/api/gemini` } });
  await step('genai.generate', async () => (await genai.models.generateContent({ model: 'acme.gemini-2.5-flash', contents: 'Say hi' })).text);
  await step('genai.stream', async () => {
    let text = '';
    for await (const chunk of await genai.models.generateContentStream({ model: 'acme.claude-sonnet-4-5', contents: 'Say hi' })) text += chunk.text ?? '';
    return text;
  });
  return results;
}

void run(window.__input).then((results) => (window.__results = results));
