import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type SqlValue = string | number | null;

/** The little of SQLite the stores need, synchronous like every embedded driver. */
export interface SqliteDb {
  readonly driver: 'better-sqlite3' | 'bun:sqlite' | 'node:sqlite';
  exec(sql: string): void;
  run(sql: string, params?: readonly SqlValue[]): { changes: number };
  all<T>(sql: string, params?: readonly SqlValue[]): T[];
  get<T>(sql: string, params?: readonly SqlValue[]): T | undefined;
  /** BEGIN IMMEDIATE … COMMIT around `fn`; rolled back if it throws. */
  transaction<T>(fn: () => T): T;
  close(): void;
}

interface Statement {
  run(...params: SqlValue[]): { changes: number | bigint };
  all(...params: SqlValue[]): unknown[];
  get(...params: SqlValue[]): unknown;
}

interface NativeDb {
  exec(sql: string): unknown;
  close(): unknown;
}

declare const Bun: unknown;
declare const Deno: unknown;

/**
 * Opens (creating file and directory if needed) a database with the driver of the running
 * runtime: bun:sqlite on Bun, node:sqlite on Deno, better-sqlite3 on Node (node:sqlite when the
 * native module is missing and Node has it).
 */
export async function openSqlite(path: string): Promise<SqliteDb> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  let driver: SqliteDb['driver'];
  let db: NativeDb;
  let prepare: (sql: string) => Statement;
  if (typeof Bun !== 'undefined') {
    const { Database } = (await import('bun:sqlite' as string)) as { Database: new (path: string) => NativeDb & { query(sql: string): Statement } };
    const bunDb = new Database(path);
    driver = 'bun:sqlite';
    db = bunDb;
    // Bun caches statements behind query() itself.
    prepare = (sql) => bunDb.query(sql);
  } else {
    const native = typeof Deno !== 'undefined' ? undefined : await importBetterSqlite();
    const opened = native ? new native(path) : await openNodeSqlite(path);
    driver = native ? 'better-sqlite3' : 'node:sqlite';
    db = opened;
    prepare = cached((sql) => opened.prepare(sql));
  }
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA synchronous = NORMAL;');

  const statement = (sql: string) => prepare(sql);
  const args = (params: readonly SqlValue[] = []) => params.map((p) => (p === undefined ? null : p));
  return {
    driver,
    exec: (sql) => void db.exec(sql),
    run: (sql, params) => ({ changes: Number(statement(sql).run(...args(params)).changes) }),
    all: <T>(sql: string, params?: readonly SqlValue[]) => statement(sql).all(...args(params)) as T[],
    // bun:sqlite answers null for no row, the others undefined.
    get: <T>(sql: string, params?: readonly SqlValue[]) => (statement(sql).get(...args(params)) ?? undefined) as T | undefined,
    transaction(fn) {
      db.exec('BEGIN IMMEDIATE');
      try {
        const result = fn();
        db.exec('COMMIT');
        return result;
      } catch (err) {
        db.exec('ROLLBACK');
        throw err;
      }
    },
    close: () => void db.close(),
  };
}

type PreparingDb = NativeDb & { prepare(sql: string): Statement };

async function importBetterSqlite(): Promise<(new (path: string) => PreparingDb) | undefined> {
  try {
    const mod = (await import('better-sqlite3' as string)) as { default: new (path: string) => PreparingDb };
    return mod.default;
  } catch {
    return undefined;
  }
}

async function openNodeSqlite(path: string): Promise<PreparingDb> {
  const { DatabaseSync } = (await import('node:sqlite' as string)) as { DatabaseSync: new (path: string) => PreparingDb };
  return new DatabaseSync(path);
}

function cached(prepare: (sql: string) => Statement): (sql: string) => Statement {
  const statements = new Map<string, Statement>();
  return (sql) => {
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = prepare(sql)));
    return statement;
  };
}
