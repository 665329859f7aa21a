// The same suite against a real PostgreSQL that scripts/postgres-test-server installs and starts.
import { hubConformance } from './conformance.ts'
import { postgresForThisFile } from './helpers/postgres.ts'

hubConformance('PostgreSQL', postgresForThisFile())
