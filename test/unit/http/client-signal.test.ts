import { describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { createServer } from 'node:http';
import { ClientAbort, CLIENT_SIGNAL, readClientSignal } from '../../../core/http/client-signal.ts';

describe('ClientAbort', () => {
  it('behaves like an AbortSignal for abort listeners: once each, in order, none after removal or abort', () => {
    const signal = new ClientAbort();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const c = () => calls.push('c');
    signal.addEventListener('abort', a, { once: true });
    signal.addEventListener('abort', a);
    signal.addEventListener('abort', b);
    signal.addEventListener('abort', c);
    signal.removeEventListener('abort', c);
    expect(signal.aborted).toBe(false);
    signal.abort();
    signal.abort();
    signal.addEventListener('abort', c);
    expect(calls).toEqual(['a', 'b']);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('AbortError');
  });

  it('calls an object listener’s handleEvent, as an EventTarget does, and removes it like a function', () => {
    const signal = new ClientAbort();
    const calls: string[] = [];
    const kept = { handleEvent: () => calls.push('kept') };
    const removed = { handleEvent: () => calls.push('removed') };
    signal.addEventListener('abort', kept);
    signal.addEventListener('abort', kept);
    signal.addEventListener('abort', removed);
    signal.removeEventListener('abort', removed);
    signal.abort();
    expect(calls).toEqual(['kept']);
    // The same object on a web AbortSignal: what the upstream clients rely on when core hands them one.
    const controller = new AbortController();
    controller.signal.addEventListener('abort', removed);
    controller.abort();
    expect(calls).toEqual(['kept', 'removed']);
  });

  it('a throwing listener does not stop the others', async () => {
    const signal = new ClientAbort();
    const calls: string[] = [];
    const reported = new Promise<unknown>((resolve) => process.once('uncaughtException', resolve));
    signal.addEventListener('abort', () => {
      throw new Error('listener failed');
    });
    signal.addEventListener('abort', () => calls.push('second'));
    signal.abort('why');
    expect(calls).toEqual(['second']);
    expect(signal.reason).toBe('why');
    expect(((await reported) as Error).message).toBe('listener failed');
  });

  it('is what core reads when a request offers one; otherwise the request signal', () => {
    const light = new ClientAbort();
    const plain = new Request('http://x/');
    expect(readClientSignal(plain)).toBe(plain.signal);
    expect(readClientSignal(Object.assign(new Request('http://x/'), { [CLIENT_SIGNAL]: light }))).toBe(light);
  });

  it('aborts an undici dispatcher call, as an AbortSignal would', async () => {
    const server = createServer(() => {
      // Never answers: only the abort can end the call.
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const agent = new Agent();
    const signal = new ClientAbort();
    try {
      const call = agent.request({ origin: `http://127.0.0.1:${port}`, path: '/', method: 'GET', signal });
      setTimeout(() => signal.abort(), 50);
      await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    } finally {
      await agent.close().catch(() => {});
      server.closeAllConnections();
      server.close();
    }
  });
});
