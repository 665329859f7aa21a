// The same suite against a real PostgreSQL that scripts/postgres-test-server installs and starts.
import { afterAll, beforeAll } from 'vitest'
import { hubConformance } from './conformance.ts'
import { startPostgres, type TestPostgres } from './helpers/postgres.ts'

let postgres: TestPostgres | undefined
beforeAll(async () => {
  postgres = await startPostgres()
}, 600_000)
afterAll(async () => {
  await postgres?.stop()
})

hubConformance('PostgreSQL', {
  databaseUrl: async () => {
    if (postgres === undefined) throw new Error('PostgreSQL did not start')
    return postgres.createDatabase()
  },
})
