import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_KEY } from './gateway-config.ts';
import { ROOT } from './procs.ts';
import type { Scenario } from './scenarios.ts';

/** The same headers the wrk scripts send, chosen by the client family of the gateway path. */
export function familyHeaders(gatewayPath: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (gatewayPath.startsWith('/api/anthropic/')) {
    headers['x-api-key'] = BENCH_KEY;
    headers['anthropic-version'] = '2023-06-01';
  } else if (gatewayPath.startsWith('/api/gemini/')) {
    headers['x-goog-api-key'] = BENCH_KEY;
  } else {
    headers.authorization = `Bearer ${BENCH_KEY}`;
  }
  return headers;
}

/**
 * The scenario's request body, as the wrk script sends it: with the model replaced when `model`
 * is given (drip variants) or the scenario names one (`bodyModel`).
 */
export function requestBody(scenario: Scenario, model?: string): string | undefined {
  if (!scenario.body) return undefined;
  const text = readFileSync(join(ROOT, 'bench', 'bodies', scenario.body), 'utf8');
  const wanted = model ?? scenario.bodyModel;
  return wanted ? withModel(text, wanted) : text;
}

/** A JSON body's text with `model` in place of its own (the member keeps its position). */
export function withModel(text: string, model: string): string {
  return JSON.stringify({ ...(JSON.parse(text) as object), model });
}

export function requestInit(scenario: Scenario, model?: string): { method: string; headers: Record<string, string>; body?: string } {
  const body = requestBody(scenario, model);
  const headers = familyHeaders(scenario.gatewayPath);
  if (body !== undefined) headers['content-type'] = 'application/json';
  return { method: scenario.method, headers, ...(body !== undefined && { body }) };
}
