import type { Redis } from 'ioredis';
import type { KeyEvents } from '../../core/accounting/types.ts';

/**
 * Revocations and rotations announced on a Redis channel: every instance drops the key from its
 * verification cache as soon as the message arrives, instead of waiting for the cache TTL.
 * Subscribing needs a connection of its own (a subscribed connection cannot send commands).
 */
export async function createRedisKeyEvents(publisher: Redis, channel: string): Promise<KeyEvents> {
  const subscriber = publisher.duplicate();
  const listeners: Array<(keyId: string) => void> = [];
  subscriber.on('message', (from: string, keyId: string) => {
    if (from === channel) for (const listener of listeners) listener(keyId);
  });
  await subscriber.subscribe(channel);
  return {
    async publish(keyId) {
      await publisher.publish(channel, keyId);
    },
    subscribe(listener) {
      listeners.push(listener);
    },
    async close() {
      subscriber.disconnect();
    },
  };
}
