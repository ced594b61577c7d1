// A fixed piece of work, timed on the server's core between runs (speed-probe.ts): JSON parsed
// and written, objects allocated and collected, 8 MiB of memory walked, as a request's work is.
// Plain JavaScript, so the probe starts without a TypeScript loader.
const body = JSON.stringify({
  model: 'probe',
  messages: Array.from({ length: 12 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `${'hello world '.repeat(6)}${i}` })),
});
const memory = new Uint8Array(8 << 20);
let sink = 0;
function work() {
  for (let i = 0; i < 4000; i++) {
    const parsed = JSON.parse(body);
    parsed.model = `probe-${i}`;
    sink += JSON.stringify(parsed).length;
  }
  for (let j = 0; j < memory.length; j += 64) sink += memory[j]++;
}
work(); // compiled and the memory paged in before the clock starts
const start = process.hrtime.bigint();
work();
work();
work();
process.stdout.write(`${Number(process.hrtime.bigint() - start) / 1e6} ${sink > 0 ? '' : '!'}\n`);
