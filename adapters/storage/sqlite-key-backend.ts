import type { KeyBackend } from '../../core/accounting/types.ts';
import type { SqliteDb } from './sqlite-driver.ts';
import { KEY_COLUMNS, keyToValues, rowToKey, type KeyRow } from './sql-rows.ts';

/** Keys in SQLite (schema from createSqliteSchema). The database is closed by its owner. */
export function createSqliteKeyBackend(db: SqliteDb): KeyBackend {
  const getKey = (id: string) => {
    const row = db.get<KeyRow>(`SELECT ${KEY_COLUMNS} FROM sy_keys WHERE id = ?`, [id]);
    return row && rowToKey(row);
  };
  return {
    async insert(key, hash) {
      db.transaction(() => {
        db.run(`INSERT INTO sy_keys (${KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, keyToValues(key));
        db.run('INSERT INTO sy_key_hashes (hash, key_id, expires_at) VALUES (?, ?, NULL)', [hash, key.id]);
      });
    },
    async findByHash(hash) {
      const row = db.get<KeyRow & { hash_expires_at: number | null }>(
        `SELECT ${KEY_COLUMNS.split(', ').map((c) => `k.${c}`).join(', ')}, h.expires_at AS hash_expires_at
         FROM sy_key_hashes h JOIN sy_keys k ON k.id = h.key_id WHERE h.hash = ?`,
        [hash],
      );
      if (!row) return undefined;
      return row.hash_expires_at === null ? { key: rowToKey(row) } : { key: rowToKey(row), hashExpiresAt: Number(row.hash_expires_at) };
    },
    async list() {
      return db.all<KeyRow>(`SELECT ${KEY_COLUMNS} FROM sy_keys ORDER BY created_at, id`).map(rowToKey);
    },
    async get(id) {
      return getKey(id);
    },
    async revoke(id, at) {
      db.run('UPDATE sy_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [at, id]);
      return getKey(id);
    },
    async rotate(id, hash, prefix, graceUntil) {
      return db.transaction(() => {
        const updated = db.run('UPDATE sy_keys SET prefix = ? WHERE id = ? AND revoked_at IS NULL', [prefix, id]);
        if (updated.changes === 0) return undefined;
        db.run('UPDATE sy_key_hashes SET expires_at = min(coalesce(expires_at, ?), ?) WHERE key_id = ?', [graceUntil, graceUntil, id]);
        db.run('INSERT INTO sy_key_hashes (hash, key_id, expires_at) VALUES (?, ?, NULL)', [hash, id]);
        return getKey(id);
      });
    },
    async close() {},
  };
}
