// The late-result suite against a real PostgreSQL that scripts/postgres-test-server installs and starts.
import { afterAll, beforeAll } from 'vitest'
import { startPostgres, type TestPostgres } from './helpers/postgres.ts'
import { lateResults } from './late-results.ts'

let postgres: TestPostgres | undefined
beforeAll(async () => {
  postgres = await startPostgres()
}, 600_000)
afterAll(async () => {
  await postgres?.stop()
})

lateResults('PostgreSQL', {
  databaseUrl: async () => {
    if (postgres === undefined) throw new Error('PostgreSQL did not start')
    return postgres.createDatabase()
  },
})
