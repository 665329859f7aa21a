// The late-result suite against a real PostgreSQL that scripts/postgres-test-server installs and starts.
import { postgresForThisFile } from './helpers/postgres.ts'
import { lateResults } from './late-results.ts'

lateResults('PostgreSQL', postgresForThisFile())
