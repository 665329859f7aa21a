// The hub bad-input corpus on a real PostgreSQL that scripts/postgres-test-server installs and starts:
// the same cases and answers as on SQLite.
import { postgresForThisFile } from '../hub/helpers/postgres.ts'
import { hubApiCorpus } from './hub-api-corpus.ts'

hubApiCorpus('PostgreSQL', postgresForThisFile())
