import type { StoredKey } from '../accounting/types.ts';

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** How the admin API and the CLI show a key: ISO times, a status, never secret or hash. */
export interface KeyView {
  id: string;
  name: string;
  prefix: string;
  status: KeyStatus;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
  models?: string[];
  rpm?: number;
  tpm?: number;
  budgetUsd?: number;
}

export function keyStatus(key: StoredKey, now: number): KeyStatus {
  if (key.revokedAt !== undefined) return 'revoked';
  return key.expiresAt !== undefined && key.expiresAt <= now ? 'expired' : 'active';
}

export function viewKey(key: StoredKey, now: number): KeyView {
  const view: KeyView = {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    status: keyStatus(key, now),
    createdAt: new Date(key.createdAt).toISOString(),
  };
  if (key.expiresAt !== undefined) view.expiresAt = new Date(key.expiresAt).toISOString();
  if (key.revokedAt !== undefined) view.revokedAt = new Date(key.revokedAt).toISOString();
  if (key.models) view.models = key.models;
  if (key.rpm !== undefined) view.rpm = key.rpm;
  if (key.tpm !== undefined) view.tpm = key.tpm;
  if (key.budgetUsd !== undefined) view.budgetUsd = key.budgetUsd;
  return view;
}

/**
 * A time given by an operator: ISO 8601 (`2026-01-31`, `2026-01-31T12:00:00Z`) or Unix seconds.
 * Undefined when it is neither.
 */
export function readTime(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value * 1000 : undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A duration such as `90s`, `30m`, `12h`, `30d` in milliseconds; undefined when malformed. */
export function readDuration(value: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([smhd])$/.exec(value.trim());
  if (!match) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(match[1]) * unit);
}
