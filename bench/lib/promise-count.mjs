/**
 * A Node `--import` preload for `npm run bench:ab -- --promises`: the first SIGUSR2 starts counting
 * the promises the process creates (an async_hooks `init` hook, enabled only while counting, since
 * a promise hook slows every promise down), the second stops and prints `promises: N` on stderr.
 * Promises are exact where CPU time is noisy: each is an allocation and a microtask on the path.
 */
import { createHook } from 'node:async_hooks';
import process from 'node:process';

let count = 0;
const hook = createHook({
  init(_id, type) {
    if (type === 'PROMISE') count++;
  },
});
let counting = false;
process.on('SIGUSR2', () => {
  counting = !counting;
  if (counting) {
    count = 0;
    hook.enable();
  } else {
    hook.disable();
    process.stderr.write(`promises: ${count}\n`);
  }
});
