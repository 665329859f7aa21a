import { hubConformance } from './conformance.ts'

hubConformance('SQLite', { databaseUrl: async () => undefined })
