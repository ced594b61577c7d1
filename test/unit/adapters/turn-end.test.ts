import { afterEach, describe, expect, it, vi } from 'vitest';
import { atTurnEnd } from '../../../adapters/turn-end.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => vi.restoreAllMocks());

describe('atTurnEnd', () => {
  it("runs the turn's jobs after its callbacks and promise jobs, in order, all in one go", async () => {
    const order: string[] = [];
    const record = (what: string, n: number) => order.push(`${what}${n}`);
    atTurnEnd(record, 'job', 1);
    Promise.resolve().then(() => order.push('promise'));
    setImmediate(() => order.push('immediate'));
    atTurnEnd(record, 'job', 2);
    order.push('sync');
    // Nothing runs before the turn's own work is done.
    expect(order).toEqual(['sync']);
    await nextTurn();
    // The second job did not wait for an immediate queued after the first: one go.
    expect(order).toEqual(['sync', 'promise', 'job1', 'job2', 'immediate']);
  });

  it('hands each job its own three arguments', async () => {
    const seen: unknown[][] = [];
    atTurnEnd((a: number, b: string, c: boolean) => seen.push([a, b, c]), 1, 'one', true);
    atTurnEnd((a: number, b: string, c: undefined) => seen.push([a, b, c]), 2, 'two');
    await nextTurn();
    expect(seen).toEqual([
      [1, 'one', true],
      [2, 'two', undefined],
    ]);
  });

  it("puts a job queued by a job into the next turn's list, not this one's", async () => {
    const seen: number[] = [];
    atTurnEnd((n: number) => {
      seen.push(n);
      atTurnEnd((m: number) => seen.push(m), 2, undefined);
    }, 1, undefined);
    await nextTurn();
    expect(seen).toEqual([1]);
    await nextTurn();
    expect(seen).toEqual([1, 2]);
  });

  it('logs a job that throws, and still runs the others, this turn and the next', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    const seen: number[] = [];
    atTurnEnd(() => {
      throw new Error('boom');
    }, undefined, undefined);
    atTurnEnd((n: number) => seen.push(n), 1, undefined);
    await nextTurn();
    expect(seen).toEqual([1]);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining('end of the turn'), expect.objectContaining({ message: 'boom' }));
    atTurnEnd((n: number) => seen.push(n), 2, undefined);
    await nextTurn();
    expect(seen).toEqual([1, 2]);
  });
});
