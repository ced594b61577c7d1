import { Router, type IRequestStrict } from 'itty-router';
import { describe, expect, it } from 'vitest';
import type { RequestContext } from '../../../core/context.ts';
import { dispatch } from '../../../core/dispatch.ts';
import { isPromise } from '../../../core/maybe-promise.ts';

type Handler = (req: IRequestStrict, ctx: RequestContext) => unknown;

function run(routes: (router: ReturnType<typeof Router<IRequestStrict, [RequestContext]>>) => void, method: string, url: string) {
  const router = Router<IRequestStrict, [RequestContext]>();
  routes(router);
  const request = new Request(url, { method }) as unknown as IRequestStrict;
  const ctx = { path: new URL(url).pathname } as RequestContext;
  const first = dispatch(router.routes, request, ctx);
  return { answer: isPromise(first) ? settle(first) : first, request };

  // As the gateway's handler does: an async route that answered nothing hands on to the next.
  async function settle(pending: Promise<unknown>): Promise<unknown> {
    let answer: unknown = pending;
    while (isPromise(answer)) answer = (await answer) ?? dispatch(router.routes, request, ctx, ctx.nextRoute);
    return answer;
  }
}

describe('dispatch over itty route table', () => {
  it('answers from the first route whose method and path match, with its params, synchronously when the handlers are', () => {
    const { answer, request } = run((r) => {
      r.get('/a/:id', () => 'get');
      r.post('/a/:id', (req) => `post ${req.params.id}`);
      r.all('*', () => 'fallback');
    }, 'POST', 'http://x/a/42?q=1');
    expect(answer).toBe('post 42');
    expect(request.params).toEqual({ id: '42' });
  });

  it('runs a guard first: nothing returned goes on, an answer or a throw ends it', async () => {
    const seen: string[] = [];
    const guard: Handler = (req) => {
      seen.push('guard');
      if (req.headers.get('x-deny')) throw new Error('denied');
      return undefined;
    };
    const asyncGuard: Handler = async () => void seen.push('async guard');
    expect(run((r) => r.get('/p', guard, () => 'ok'), 'GET', 'http://x/p').answer).toBe('ok');
    expect(await run((r) => r.get('/p', asyncGuard, () => 'ok'), 'GET', 'http://x/p').answer).toBe('ok');
    expect(seen).toEqual(['guard', 'async guard']);
    const router = Router<IRequestStrict, [RequestContext]>();
    router.get('/p', guard, () => 'ok');
    const denied = new Request('http://x/p', { headers: { 'x-deny': '1' } }) as unknown as IRequestStrict;
    expect(() => dispatch(router.routes, denied, { path: '/p' } as RequestContext)).toThrow('denied');
  });

  it('a route whose handlers all return nothing (sync or async) lets the next matching route answer, as itty does', async () => {
    expect(run((r) => {
      r.get('/p', () => undefined);
      r.all('/p', () => 'second');
    }, 'GET', 'http://x/p').answer).toBe('second');
    expect(await run((r) => {
      r.get('/p', async () => undefined, () => null);
      r.get('*', async () => 'third');
    }, 'GET', 'http://x/p').answer).toBe('third');
    // A last handler's promise resolving to nothing: the next route still gets its turn.
    expect(await run((r) => {
      r.get('/p', () => undefined, async () => undefined);
      r.all('*', () => 'after');
    }, 'GET', 'http://x/p').answer).toBe('after');
    expect(run((r) => r.get('/p', () => 'x'), 'GET', 'http://x/other').answer).toBeUndefined();
  });

  it("returns an async route's own promise, not one chained to it, and where to go on from", async () => {
    const router = Router<IRequestStrict, [RequestContext]>();
    let pending: Promise<unknown> | undefined;
    router.get('/skip', () => 'no');
    router.get('/p', () => undefined, () => (pending = Promise.resolve('answer')));
    router.all('*', () => 'after');
    const ctx = { path: '/p' } as RequestContext;
    const answer = dispatch(router.routes, new Request('http://x/p') as unknown as IRequestStrict, ctx);
    expect(answer).toBe(pending);
    expect(ctx.nextRoute).toBe(2);
    expect(await answer).toBe('answer');
  });

  it('an async handler rejecting rejects the answer', async () => {
    const { answer } = run((r) => r.get('/p', async () => Promise.reject(new Error('boom'))), 'GET', 'http://x/p');
    await expect(answer).rejects.toThrow('boom');
  });
});
