// Services, status pages and status-page incidents with their updates.

import type { Db, Queryable } from '../db/types.ts'
import { type CursorPosition, encodeCursor } from './cursor.ts'
import {
  type IdempotentOutcome,
  type IdempotentRequest,
  runOnce,
  sweepIdempotencyKeys,
} from './idempotency.ts'
import { iso, newId } from './ids.ts'
import type {
  Incident,
  IncidentSeverity,
  IncidentStatus,
  IncidentUpdate,
  NewIncident,
  NewIncidentUpdate,
  Page,
  Service,
  StatusPage,
} from './model.ts'
import { queueWebhooks } from './webhooks.ts'

interface ServiceRow {
  [column: string]: string | number | null
  id: string
  account_id: string
  name: string
  created_at: number
  updated_at: number
}

interface IncidentRow {
  [column: string]: string | number | null
  id: string
  name: string
  severity: string
  last_update_status: string
  created_at: number
  updated_at: number
  duration: number | null
}

interface UpdateRow {
  [column: string]: string | number | null
  id: string
  incident_id: string
  description: string
  status: string
  public_date: number
  created_at: number
  notify_subscribers: number
}

/** The outcome of adding an incident or an update when something it names does not exist. */
export class UnknownReference extends Error {
  readonly field: string
  constructor(field: string, value: string) {
    super(`${field} ${JSON.stringify(value)} does not exist in this account`)
    this.field = field
  }
}

function service(row: ServiceRow): Service {
  return {
    id: row.id,
    name: row.name,
    accountId: row.account_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }
}

function update(row: UpdateRow): IncidentUpdate {
  return {
    id: row.id,
    description: row.description,
    status: row.status as IncidentStatus,
    publicIncidentUpdateDate: iso(row.public_date),
    created_at: iso(row.created_at),
    notifySubscribers: row.notify_subscribers === 1,
  }
}

function placeholders(count: number, from = 1): string {
  return Array.from({ length: count }, (_, i) => `$${i + from}`).join(', ')
}

/** Services and updates for a set of incidents, two queries whatever the page size. */
async function hydrate(q: Queryable, rows: IncidentRow[]): Promise<Incident[]> {
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.id)
  const services = await q.query<ServiceRow & { incident_id: string }>(
    `SELECT s.id, s.account_id, s.name, s.created_at, s.updated_at, l.incident_id FROM incident_services l
     JOIN services s ON s.id = l.service_id WHERE l.incident_id IN (${placeholders(ids.length)}) ORDER BY s.name, s.id`,
    ids,
  )
  const updates = await q.query<UpdateRow>(
    `SELECT id, incident_id, description, status, public_date, created_at, notify_subscribers FROM incident_updates
     WHERE incident_id IN (${placeholders(ids.length)}) ORDER BY position`,
    ids,
  )
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    severity: row.severity as IncidentSeverity,
    services: services.filter((s) => s.incident_id === row.id).map(service),
    incidentUpdates: updates.filter((u) => u.incident_id === row.id).map(update),
    lastUpdateStatus: row.last_update_status as IncidentStatus,
    created_at: iso(row.created_at),
    duration: row.duration,
    updated_at: iso(row.updated_at),
  }))
}

const INCIDENT_COLUMNS = 'id, name, severity, last_update_status, created_at, updated_at, duration'

async function insertUpdate(
  tx: Queryable,
  accountId: string,
  incident: { id: string; created_at: number; update_count: number; last_update_status: string },
  input: NewIncidentUpdate,
  at: number,
): Promise<UpdateRow> {
  const status = input.status ?? (incident.last_update_status as IncidentStatus)
  const row: UpdateRow = {
    id: newId(),
    incident_id: incident.id,
    description: input.description,
    status,
    public_date: input.publicIncidentUpdateDate ?? at,
    created_at: at,
    notify_subscribers: input.notifySubscribers ? 1 : 0,
  }
  await tx.query(
    `INSERT INTO incident_updates (id, incident_id, position, description, status, public_date, created_at, notify_subscribers)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      row.id,
      row.incident_id,
      incident.update_count + 1,
      row.description,
      row.status,
      row.public_date,
      row.created_at,
      row.notify_subscribers,
    ],
  )
  // duration: whole seconds from creation to the RESOLVED update; an update reopening it clears it.
  const duration = status === 'RESOLVED' ? Math.max(0, Math.round((at - incident.created_at) / 1000)) : null
  await tx.query(
    'UPDATE incidents SET last_update_status = $2, updated_at = $3, duration = $4, update_count = update_count + 1 WHERE id = $1',
    [incident.id, status, at, duration],
  )
  if (input.notifySubscribers) {
    const [current] = await tx.query<{ id: string; name: string; severity: string }>(
      'SELECT id, name, severity FROM incidents WHERE id = $1',
      [incident.id],
    )
    await queueWebhooks(
      tx,
      accountId,
      {
        event: 'incident.update',
        incident: { ...current, lastUpdateStatus: status, duration },
        incidentUpdate: update(row),
      },
      at,
    )
  }
  return row
}

export function createIncidentsStore(db: Db, now: () => number) {
  const lockSuffix = db.dialect === 'postgres' ? ' FOR UPDATE' : ''

  async function requireServices(tx: Queryable, accountId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    const found = await tx.query<{ id: string }>(
      `SELECT id FROM services WHERE account_id = $1 AND id IN (${placeholders(ids.length, 2)})`,
      [accountId, ...ids],
    )
    const missing = ids.find((id) => !found.some((f) => f.id === id))
    if (missing !== undefined) throw new UnknownReference('services', missing)
  }

  async function readIncident(q: Queryable, accountId: string, id: string): Promise<Incident | null> {
    const rows = await q.query<IncidentRow>(
      `SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE account_id = $1 AND id = $2`,
      [accountId, id],
    )
    const [incident] = await hydrate(q, rows)
    return incident ?? null
  }

  async function insertIncident(
    tx: Queryable,
    accountId: string,
    input: NewIncident,
    at: number,
  ): Promise<Incident> {
    const id = newId()
    await requireServices(tx, accountId, input.serviceIds)
    await tx.query(
      `INSERT INTO incidents (id, account_id, name, severity, last_update_status, created_at, updated_at, duration, update_count)
       VALUES ($1, $2, $3, $4, $5, $6, $6, NULL, 0)`,
      [id, accountId, input.name, input.severity, 'INVESTIGATING', at],
    )
    for (const serviceId of new Set(input.serviceIds)) {
      await tx.query('INSERT INTO incident_services (incident_id, service_id) VALUES ($1, $2)', [
        id,
        serviceId,
      ])
    }
    if (input.firstUpdate) {
      const incident = { id, created_at: at, update_count: 0, last_update_status: 'INVESTIGATING' }
      await insertUpdate(tx, accountId, incident, input.firstUpdate, at)
    }
    // Read inside the transaction: the answer an Idempotency-Key records is the one sent.
    return (await readIncident(tx, accountId, id)) as Incident
  }

  /** Null when the incident does not exist in this account. */
  async function appendUpdate(
    tx: Queryable,
    accountId: string,
    incidentId: string,
    input: NewIncidentUpdate,
    at: number,
  ): Promise<IncidentUpdate | null> {
    // The row lock orders concurrent updates of one incident (positions, lastUpdateStatus).
    const rows = await tx.query<{
      id: string
      created_at: number
      update_count: number
      last_update_status: string
    }>(
      `SELECT id, created_at, update_count, last_update_status FROM incidents WHERE account_id = $1 AND id = $2${lockSuffix}`,
      [accountId, incidentId],
    )
    const incident = rows[0]
    if (incident === undefined) return null
    return update(await insertUpdate(tx, accountId, incident, input, at))
  }

  const store = {
    async createService(accountId: string, name: string): Promise<Service> {
      const at = now()
      const row: ServiceRow = { id: newId(), account_id: accountId, name, created_at: at, updated_at: at }
      await db.query(
        'INSERT INTO services (id, account_id, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)',
        [row.id, row.account_id, row.name, row.created_at, row.updated_at],
      )
      return service(row)
    },

    async listServices(accountId: string): Promise<Service[]> {
      const rows = await db.query<ServiceRow>(
        'SELECT id, account_id, name, created_at, updated_at FROM services WHERE account_id = $1 ORDER BY name, id',
        [accountId],
      )
      return rows.map(service)
    },

    async createStatusPage(accountId: string, name: string, serviceIds: string[]): Promise<StatusPage> {
      const at = now()
      const id = newId()
      await db.transaction(async (tx) => {
        await requireServices(tx, accountId, serviceIds)
        await tx.query(
          'INSERT INTO status_pages (id, account_id, name, created_at) VALUES ($1, $2, $3, $4)',
          [id, accountId, name, at],
        )
        for (const serviceId of new Set(serviceIds)) {
          await tx.query('INSERT INTO status_page_services (status_page_id, service_id) VALUES ($1, $2)', [
            id,
            serviceId,
          ])
        }
      })
      const pages = await store.listStatusPages(accountId)
      return pages.find((p) => p.id === id) as StatusPage
    },

    async listStatusPages(accountId: string): Promise<StatusPage[]> {
      const pages = await db.query<{ id: string; name: string; created_at: number }>(
        'SELECT id, name, created_at FROM status_pages WHERE account_id = $1 ORDER BY created_at, id',
        [accountId],
      )
      const links = await db.query<ServiceRow & { status_page_id: string }>(
        `SELECT s.id, s.account_id, s.name, s.created_at, s.updated_at, l.status_page_id FROM status_page_services l
         JOIN services s ON s.id = l.service_id WHERE s.account_id = $1 ORDER BY s.name, s.id`,
        [accountId],
      )
      return pages.map((p) => ({
        id: p.id,
        name: p.name,
        created_at: iso(p.created_at),
        services: links.filter((l) => l.status_page_id === p.id).map(service),
      }))
    },

    async createIncident(accountId: string, input: NewIncident): Promise<Incident> {
      const at = now()
      return db.transaction(async (tx) => insertIncident(tx, accountId, input, at))
    },

    /** createIncident once per Idempotency-Key; `encode` gives the 201 answer's JSON text. */
    async createIncidentOnce(
      accountId: string,
      input: NewIncident,
      request: IdempotentRequest,
      encode: (incident: Incident) => string,
    ): Promise<IdempotentOutcome<Incident>> {
      const at = now()
      return runOnce(db, at, request, async (tx) => {
        const incident = await insertIncident(tx, accountId, input, at)
        return { value: incident, answer: { status: 201, body: encode(incident) } }
      })
    },

    async getIncident(accountId: string, id: string): Promise<Incident | null> {
      return readIncident(db, accountId, id)
    },

    /** Newest first, by (created_at, id) descending, from after the cursor. */
    async listIncidents(accountId: string, limit: number, after?: CursorPosition): Promise<Page<Incident>> {
      const rows = after
        ? await db.query<IncidentRow>(
            `SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE account_id = $1
             AND (created_at < $2 OR (created_at = $2 AND id < $3)) ORDER BY created_at DESC, id DESC LIMIT $4`,
            [accountId, after.time, after.id, limit + 1],
          )
        : await db.query<IncidentRow>(
            `SELECT ${INCIDENT_COLUMNS} FROM incidents WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
            [accountId, limit + 1],
          )
      const page = rows.slice(0, limit)
      const last = page[page.length - 1]
      return {
        entries: await hydrate(db, page),
        nextCursor:
          rows.length > limit && last !== undefined
            ? encodeCursor({ time: last.created_at, id: last.id })
            : null,
      }
    },

    /** Null when the incident does not exist in this account. */
    async addIncidentUpdate(
      accountId: string,
      incidentId: string,
      input: NewIncidentUpdate,
    ): Promise<IncidentUpdate | null> {
      // The time once the incident's row is ours: updates of one incident stay in time order.
      return db.transaction(async (tx) => appendUpdate(tx, accountId, incidentId, input, now()))
    },

    /**
     * addIncidentUpdate once per Idempotency-Key; `encode` gives the 200 answer's JSON text. An
     * unknown incident is 'refused' and records nothing.
     */
    async addIncidentUpdateOnce(
      accountId: string,
      incidentId: string,
      input: NewIncidentUpdate,
      request: IdempotentRequest,
      encode: (update: IncidentUpdate) => string,
    ): Promise<IdempotentOutcome<IncidentUpdate>> {
      const at = now()
      return runOnce(db, at, request, async (tx) => {
        const added = await appendUpdate(tx, accountId, incidentId, input, at)
        return added === null ? null : { value: added, answer: { status: 200, body: encode(added) } }
      })
    },

    /** Deletes a bounded batch of Idempotency-Keys past their 24 hours; returns how many. */
    sweepIdempotencyKeys: (): Promise<number> => sweepIdempotencyKeys(db, now()),
  }
  return store
}

export type IncidentsStore = ReturnType<typeof createIncidentsStore>
