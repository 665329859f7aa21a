// The hub bad-input corpus on a real PostgreSQL that scripts/postgres-test-server installs and starts:
// the same cases and answers as on SQLite.
import { afterAll, beforeAll } from 'vitest'
import { startPostgres, type TestPostgres } from '../hub/helpers/postgres.ts'
import { hubApiCorpus } from './hub-api-corpus.ts'

let postgres: TestPostgres | undefined
beforeAll(async () => {
  postgres = await startPostgres()
}, 600_000)
afterAll(async () => {
  await postgres?.stop()
})

hubApiCorpus('PostgreSQL', {
  databaseUrl: async () => {
    if (postgres === undefined) throw new Error('PostgreSQL did not start')
    return postgres.createDatabase()
  },
})
