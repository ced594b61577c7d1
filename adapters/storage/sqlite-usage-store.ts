import type { UsageStore } from '../../core/accounting/types.ts';
import type { SqliteDb, SqlValue } from './sqlite-driver.ts';
import { readSummaryRow, SUMMARY_SELECT, USAGE_COLUMNS, usageToValues, type SummaryRow } from './sql-rows.ts';

const GROUPS = {
  key: 'key_id',
  model: 'model',
  day: "strftime('%Y-%m-%d', time / 1000, 'unixepoch')",
} as const;

/** Usage records in SQLite; a batch is one transaction. */
export function createSqliteUsageStore(db: SqliteDb): UsageStore {
  const insert = `INSERT INTO sy_usage (${USAGE_COLUMNS}) VALUES (${USAGE_COLUMNS.split(',').map(() => '?').join(', ')})`;
  return {
    async appendBatch(records) {
      if (records.length === 0) return;
      db.transaction(() => {
        for (const record of records) db.run(insert, usageToValues(record));
      });
    },
    async summarize({ by, from, to, keyId }) {
      const where: string[] = [];
      const params: SqlValue[] = [];
      if (from !== undefined) where.push('time >= ?'), params.push(from);
      if (to !== undefined) where.push('time < ?'), params.push(to);
      if (keyId !== undefined) where.push('key_id = ?'), params.push(keyId);
      const rows = db.all<SummaryRow>(
        `SELECT ${GROUPS[by]} AS grp, ${SUMMARY_SELECT} FROM sy_usage
         ${where.length ? `WHERE ${where.join(' AND ')}` : ''} GROUP BY grp ORDER BY grp`,
        params,
      );
      return rows.map(readSummaryRow);
    },
    async close() {},
  };
}
