import { lateResults } from './late-results.ts'

lateResults('SQLite', { databaseUrl: async () => undefined })
