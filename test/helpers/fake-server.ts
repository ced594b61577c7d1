import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Counts the responses of a fake server whose client went away before the fake finished writing them. */
export interface AbortCounter {
  readonly count: number;
  /** Watches `res`; call the returned function once the fake has finished writing it. */
  track(res: ServerResponse): () => void;
  /** Resolves once `count` reaches `expected` (or rejects after `ms`). */
  waitFor(expected: number, ms?: number): Promise<void>;
}

/** `what` names the fake in the timeout message ("expected 1 aborted <what> responses"). */
export function abortCounter(what: string): AbortCounter {
  let count = 0;
  return {
    get count() {
      return count;
    },
    track(res) {
      let finished = false;
      res.on('close', () => {
        if (!finished) count++;
      });
      return () => {
        finished = true;
      };
    },
    async waitFor(expected, ms = 5000) {
      const deadline = Date.now() + ms;
      while (count < expected) {
        if (Date.now() > deadline) throw new Error(`expected ${expected} aborted ${what} responses, saw ${count}`);
        await sleep(10);
      }
    },
  };
}

/** Listens on a random port of 127.0.0.1; `close` drops open connections first. */
export async function listenLocal(server: Server): Promise<{ url: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
