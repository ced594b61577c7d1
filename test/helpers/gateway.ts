import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createNodeFetch, serveNode } from '../../adapters/node.ts';
import { createGateway, type AccessLogEntry, type GatewayConfigInput, type GatewayOptions } from '../../core/index.ts';

export const TEST_KEY = 'sk-switchyard-test-key';

export interface RunningGateway {
  /** e.g. http://127.0.0.1:40000 */
  url: string;
  logs: AccessLogEntry[];
  errors: unknown[];
  close(): Promise<void>;
}

/** A test configuration: one static key, and whatever providers/models the test passes. */
export function testConfig(partial: Partial<GatewayConfigInput> & Pick<GatewayConfigInput, 'providers' | 'models'>): GatewayConfigInput {
  return { prefix: 'acme', owner: 'acme', keys: [{ id: 'test', key: TEST_KEY }], ...partial };
}

/** Starts the gateway in-process behind the real Node adapter on a random port. */
export async function startTestGateway(config: GatewayConfigInput, options: GatewayOptions = {}): Promise<RunningGateway> {
  const logs: AccessLogEntry[] = [];
  const errors: unknown[] = [];
  const gateway = createGateway(config, {
    fetch: createNodeFetch(),
    log: (entry) => logs.push(entry),
    logError: (_id, err) => errors.push(err),
    ...options,
  });
  const server: Server = await serveNode(gateway, { port: 0, hostname: '127.0.0.1' });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    logs,
    errors,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
