// PostgreSQL through pg's Pool. BIGINT (epoch ms, counts) comes back as a JS number: every value the
// hub stores fits in 2^53.

import pg from 'pg'
import type { Db, Queryable, Row, SqlValue } from './types.ts'

const INT8_OID = 20

export function openPostgres(connectionString: string, options: { max?: number } = {}): Db {
  const pool = new pg.Pool({
    connectionString,
    max: options.max ?? 10,
    types: {
      getTypeParser: ((oid: number, format?: string) =>
        oid === INT8_OID
          ? (value: string) => Number(value)
          : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  })
  // An idle client losing its connection (server restart) must not crash the hub.
  pool.on('error', () => undefined)
  const query = async <R extends Row>(
    client: pg.Pool | pg.PoolClient,
    sql: string,
    params: readonly SqlValue[],
  ): Promise<R[]> => (await client.query<R>(sql, params as SqlValue[])).rows

  return {
    dialect: 'postgres',
    query: (sql, params = []) => query(pool, sql, params),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const value = await fn({ query: (sql, params = []) => query(client, sql, params) })
        await client.query('COMMIT')
        return value
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw error
      } finally {
        client.release()
      }
    },
    close: () => pool.end(),
  }
}
