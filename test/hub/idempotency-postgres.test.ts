// The same suite against a real PostgreSQL that scripts/postgres-test-server installs and starts.
import { postgresForThisFile } from './helpers/postgres.ts'
import { idempotencySuite } from './idempotency.ts'

idempotencySuite('PostgreSQL', postgresForThisFile())
