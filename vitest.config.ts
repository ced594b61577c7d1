import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    // Spawned runtimes (bun, deno) and real servers share two cores: keep parallelism modest.
    maxWorkers: 2,
  },
});
