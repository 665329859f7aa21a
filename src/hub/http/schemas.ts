// JSON schemas of the hub's bodies, shared by validation, response serialisation and /openapi.json.
// Field names and limits follow the seed's tables (Incident, Service, IncidentUpdate, list page,
// heartbeat availability).

import { IncidentSeverity, IncidentStatus, SessionStatus } from '../store/model.ts'

export const errorSchema = {
  type: 'object',
  required: ['statusCode', 'error', 'message'],
  properties: { statusCode: { type: 'integer' }, error: { type: 'string' }, message: { type: 'string' } },
} as const

export const accountHeader = {
  type: 'object',
  properties: {
    'x-service-account': { type: 'string', minLength: 1, maxLength: 100, description: 'account identifier' },
  },
} as const

const timestamp = { type: 'string', format: 'date-time' } as const

export const serviceSchema = {
  type: 'object',
  required: ['id', 'name', 'accountId', 'created_at', 'updated_at'],
  properties: {
    name: { type: 'string' },
    id: { type: 'string' },
    accountId: { type: 'string' },
    created_at: timestamp,
    updated_at: timestamp,
  },
} as const

export const incidentUpdateSchema = {
  type: 'object',
  required: ['description'],
  properties: {
    description: { type: 'string' },
    id: { type: 'string' },
    status: { type: 'string', enum: IncidentStatus },
    publicIncidentUpdateDate: { ...timestamp, description: 'date shown publicly for the update' },
    created_at: timestamp,
    notifySubscribers: { type: 'boolean', default: false },
  },
} as const

export const incidentUpdateBody = {
  type: 'object',
  required: ['description'],
  additionalProperties: false,
  properties: {
    description: { type: 'string', minLength: 1, maxLength: 10_000 },
    // id and created_at are accepted because the seed lists them, and assigned by the hub.
    id: { type: 'string', maxLength: 100 },
    status: { type: 'string', enum: IncidentStatus },
    publicIncidentUpdateDate: { ...timestamp, description: 'defaults to the time of the request' },
    created_at: timestamp,
    notifySubscribers: { type: 'boolean', default: false },
  },
} as const

export const incidentSchema = {
  type: 'object',
  required: ['name', 'severity', 'id', 'services', 'incidentUpdates', 'lastUpdateStatus', 'created_at'],
  properties: {
    name: { type: 'string', maxLength: 255 },
    severity: { type: 'string', enum: IncidentSeverity },
    id: { type: 'string' },
    services: { type: 'array', items: serviceSchema },
    incidentUpdates: { type: 'array', items: incidentUpdateSchema },
    lastUpdateStatus: { type: 'string', enum: IncidentStatus },
    created_at: timestamp,
    duration: {
      type: ['integer', 'null'],
      description: 'seconds from the creation of the incident to its RESOLVED update; null while unresolved',
    },
    updated_at: timestamp,
  },
} as const

export const incidentListSchema = {
  type: 'object',
  required: ['length', 'entries'],
  properties: {
    length: { type: 'integer' },
    entries: { type: 'array', items: incidentSchema },
    nextId: { type: ['string', 'null'], description: 'cursor for the next page; null when there is none' },
  },
} as const

export const newIncidentBody = {
  type: 'object',
  required: ['name', 'severity'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    severity: { type: 'string', enum: IncidentSeverity },
    services: { type: 'array', items: { type: 'string', minLength: 1 }, maxItems: 100, default: [] },
    description: { type: 'string', minLength: 1, maxLength: 10_000, description: 'text of a first update' },
    status: { type: 'string', enum: IncidentStatus },
    notifySubscribers: { type: 'boolean', default: false },
  },
} as const

export const availabilitySchema = {
  type: ['object', 'null'],
  required: ['successRatio', 'totalEntitiesCurrentPeriod'],
  properties: {
    successRatio: {
      type: 'object',
      required: ['previousPeriod', 'currentPeriod'],
      properties: {
        previousPeriod: { type: 'number', description: 'percent of successful results, 0..100' },
        currentPeriod: { type: 'number', description: 'percent of successful results, 0..100' },
      },
    },
    totalEntitiesCurrentPeriod: { type: 'number' },
  },
} as const

export const sessionStatusSchema = {
  type: 'string',
  enum: SessionStatus.filter((s) => s !== 'RUNNING'),
} as const

export const idParam = (name: string) =>
  ({
    type: 'object',
    required: [name],
    properties: { [name]: { type: 'string', minLength: 1, maxLength: 100 } },
  }) as const

export const pageQuery = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    nextId: {
      type: 'string',
      minLength: 1,
      maxLength: 200,
      description: 'cursor taken from the nextId of the previous page',
    },
  },
} as const

export const checkResultSchema = {
  type: 'object',
  required: [
    'id',
    'checkId',
    'checkType',
    'name',
    'status',
    'startedAt',
    'durationMs',
    'location',
    'attempt',
    'assertions',
    'artifacts',
    'agent',
  ],
  additionalProperties: true,
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100 },
    checkId: { type: 'string', minLength: 1, maxLength: 200 },
    checkType: { type: 'string', minLength: 1, maxLength: 40 },
    // The agent's limit for a check name (src/constructs/check.ts): a name it accepts is never refused here.
    name: { type: 'string', maxLength: 1024 },
    status: { type: 'string', enum: ['passed', 'degraded', 'failed'] },
    startedAt: timestamp,
    durationMs: { type: 'number', minimum: 0 },
    location: { type: 'string', maxLength: 100 },
    attempt: { type: 'integer', minimum: 0 },
    sessionId: { type: 'string', maxLength: 100 },
    willRetry: { type: 'boolean' },
    assertions: { type: 'array' },
    artifacts: { type: 'array' },
    // agent.id is stored in a column of its own (the agent that ran it): declared, so it is checked.
    agent: {
      type: 'object',
      additionalProperties: true,
      properties: { id: { type: 'string', maxLength: 100 } },
    },
  },
} as const

export const checkResultPageSchema = {
  type: 'object',
  required: ['length', 'entries'],
  properties: {
    length: { type: 'integer' },
    entries: { type: 'array', items: { type: 'object', additionalProperties: true } },
    nextId: { type: ['string', 'null'] },
  },
} as const

export const checkDefinitionSchema = {
  type: 'object',
  required: ['type', 'logicalId', 'name'],
  additionalProperties: true,
  properties: {
    type: {
      type: 'string',
      enum: ['URL', 'DNS', 'TCP', 'ICMP', 'HEARTBEAT', 'API', 'MULTI_STEP', 'BROWSER', 'PLAYWRIGHT'],
    },
    logicalId: { type: 'string', minLength: 1, maxLength: 200 },
    name: { type: 'string', minLength: 1, maxLength: 1024 },
    runtimeId: { type: 'string', maxLength: 20 },
  },
} as const
