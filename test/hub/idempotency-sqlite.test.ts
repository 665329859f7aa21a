import { idempotencySuite } from './idempotency.ts'

idempotencySuite('SQLite', { databaseUrl: async () => undefined })
