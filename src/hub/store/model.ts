// The hub's public shapes (seed: Incident, Service, IncidentUpdate, list page, availability) and the
// inputs the store accepts. Timestamps leave the store as ISO 8601 strings.

export const IncidentSeverity = ['CRITICAL', 'MAJOR', 'MEDIUM', 'MINOR'] as const
export type IncidentSeverity = (typeof IncidentSeverity)[number]
export const IncidentStatus = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const
export type IncidentStatus = (typeof IncidentStatus)[number]
export const SessionStatus = ['RUNNING', 'PASSED', 'FAILED', 'DEGRADED', 'TIMED_OUT', 'CANCELLED'] as const
export type SessionStatus = (typeof SessionStatus)[number]

export interface Account {
  id: string
  name: string
  created_at: string
}

export interface ApiKeyInfo {
  id: string
  name: string
  accountId: string
  /** The first characters of the key, so a user can tell keys apart; never enough to use it. */
  prefix: string
  created_at: string
}

export interface AuthenticatedKey {
  keyId: string
  accountId: string
  accountIds: string[]
}

export interface Service {
  id: string
  name: string
  accountId: string
  created_at: string
  updated_at: string
}

export interface StatusPage {
  id: string
  name: string
  services: Service[]
  created_at: string
}

export interface IncidentUpdate {
  id: string
  description: string
  status: IncidentStatus
  publicIncidentUpdateDate: string
  created_at: string
  notifySubscribers: boolean
}

export interface Incident {
  id: string
  name: string
  severity: IncidentSeverity
  services: Service[]
  incidentUpdates: IncidentUpdate[]
  lastUpdateStatus: IncidentStatus
  created_at: string
  /** Seconds from the incident's creation to its RESOLVED update; null while it is not resolved. */
  duration: number | null
  updated_at: string
}

export interface NewIncident {
  name: string
  severity: IncidentSeverity
  serviceIds: string[]
  /** When given, the incident starts with this update. */
  firstUpdate?: NewIncidentUpdate
}

export interface NewIncidentUpdate {
  description: string
  status?: IncidentStatus
  publicIncidentUpdateDate?: number
  notifySubscribers: boolean
}

export interface Page<T> {
  entries: T[]
  nextCursor: string | null
}

export interface HeartbeatEvent {
  time: number
  status: 'passed' | 'degraded' | 'failed'
}
