import { createReadStream } from 'node:fs';
import { ADMIN_TOKEN } from './gateway-config.ts';
import type { RuntimeResult } from './report.ts';

/** Counts newline bytes without loading the file (the access log of a run is hundreds of MB). */
function countLines(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let lines = 0;
    createReadStream(path)
      .on('data', (chunk) => {
        const buf = chunk as Buffer;
        for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) lines++;
      })
      .on('end', () => resolve(lines))
      .on('error', reject);
  });
}

/**
 * Evidence that the gateway did its bookkeeping during the run: access-log lines written, and
 * usage records by model read back through the admin API (after the usage writer's flush interval).
 */
export async function readAccounting(gatewayPort: number, accessLog: string): Promise<RuntimeResult['accounting']> {
  await new Promise((r) => setTimeout(r, 1500));
  const res = await fetch(`http://127.0.0.1:${gatewayPort}/admin/v1/usage?by=model`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  if (!res.ok) throw new Error(`admin usage: status ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { data: Array<{ group: string; requests: number; outputTokens: number }> };
  return {
    accessLogLines: await countLines(accessLog),
    usage: body.data.map(({ group, requests, outputTokens }) => ({ group, requests, outputTokens })),
  };
}

/** "node v20.20.2" from the adapter's "listening on … (node v20.20.2)" line. */
export function runtimeVersion(stderr: string): string {
  return /listening on \S+ \(([^)]+)\)/.exec(stderr)?.[1] ?? 'unknown version';
}
