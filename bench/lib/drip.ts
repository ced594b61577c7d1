import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { ROOT } from './procs.ts';

/**
 * A dripping SSE upstream (behind nginx at /drip/…): sends the first events at once, the rest
 * `delayMs` later. A proxy that relays the first byte as soon as it arrives shows a time to first
 * byte far below `delayMs`; one that waits for more (or buffers) shows at least `delayMs`.
 */
interface Answer {
  first: string;
  rest: string;
}

function split(file: string, events: number, separator: string): Answer {
  const text = readFileSync(join(ROOT, 'bench', 'upstream', file), 'utf8');
  let at = 0;
  for (let i = 0; i < events; i++) at = text.indexOf(separator, at) + separator.length;
  return { first: text.slice(0, at), rest: text.slice(at) };
}

// Up to and including the first piece of text, so a translating gateway has something to emit.
const ANSWERS: Record<string, Answer> = {
  anthropic: split('anthropic-stream.sse', 4, '\n\n'),
  openai: split('openai-stream.sse', 2, '\n\n'),
  gemini: split('gemini-stream.sse', 1, '\r\n\r\n'),
};

export function startDrip(delayMs: number): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    const kind = /^\/drip\/([a-z]+)\//.exec(req.url ?? '')?.[1] ?? '';
    const answer = ANSWERS[kind];
    req.resume();
    req.once('end', () => {
      if (!answer) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(answer.first);
      setTimeout(() => res.end(answer.rest), delayMs);
    });
  });
  server.keepAliveTimeout = 120_000;
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}
