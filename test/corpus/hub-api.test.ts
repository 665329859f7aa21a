// The hub bad-input corpus on the embedded SQLite database.
import { hubApiCorpus } from './hub-api-corpus.ts'

hubApiCorpus('SQLite', { databaseUrl: async () => undefined })
