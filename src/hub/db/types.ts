// The few database operations the hub store needs, over SQLite and PostgreSQL alike. SQL is written
// once with $1..$n placeholders; each driver adapts it. Values are strings, numbers or null only
// (timestamps are epoch ms, booleans 0/1, JSON as text), so both databases return the same rows.

export type SqlValue = string | number | null
export type Row = Record<string, SqlValue>

export interface Queryable {
  query<R extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<R[]>
}

export type Dialect = 'sqlite' | 'postgres'

export interface TransactionOptions {
  /**
   * PostgreSQL: the transaction first takes pg_advisory_xact_lock(advisoryLock), waiting for it as
   * long as it takes (no statement or query timeout), so replicas doing the same run one after
   * another. SQLite needs none: BEGIN IMMEDIATE already admits one writer at a time.
   */
  advisoryLock?: number
}

export interface Db extends Queryable {
  readonly dialect: Dialect
  /** Runs fn in one transaction; SQLite: one writer at a time, PostgreSQL: READ COMMITTED with row locks. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>
  close(): Promise<void>
}
