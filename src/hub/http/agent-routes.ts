// The agent exchange under /v1/agent: register (flavor, check types, runtimes), long-poll claim with
// leases, lease renewal, results idempotent by run id, artifacts streamed to disk (413 above the cap).

import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream } from 'node:fs'
import { mkdir, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { FastifyInstance } from 'fastify'
import { partialUploadPath } from '../abandoned-uploads.ts'
import type { Notifier } from '../notifier.ts'
import type { IncomingResult } from '../store/jobs.ts'
import type { HubStore } from '../store/store.ts'
import { HttpError } from './errors.ts'
import type { RouteTable } from './route-table.ts'
import { accountHeader, checkResultSchema, errorSchema } from './schemas.ts'

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema }
const agentId = { type: 'string', minLength: 1, maxLength: 100, pattern: '^[\\w.:-]+$' } as const
const runIdPattern = '^[\\w-]{1,100}$'
const artifactNamePattern = '^[\\w][\\w.-]{0,199}$'

export interface AgentRouteDeps {
  store: HubStore
  notifier: Notifier
  dataDir: string
  maxArtifactBytes: number
  now: () => number
}

export function registerAgentRoutes(app: FastifyInstance, table: RouteTable, deps: AgentRouteDeps): void {
  const { store } = deps

  table.add(app, {
    method: 'POST',
    url: '/v1/agent/register',
    schema: {
      summary: 'An agent announces itself and what it can run; claims only return jobs it can run',
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['agentId', 'flavor', 'version', 'checkTypes'],
        additionalProperties: false,
        properties: {
          agentId,
          flavor: { type: 'string', enum: ['full', 'uptime'] },
          version: { type: 'string', minLength: 1, maxLength: 40 },
          location: { type: 'string', minLength: 1, maxLength: 100, default: 'private' },
          checkTypes: { type: 'array', maxItems: 20, items: { type: 'string', minLength: 1, maxLength: 40 } },
          runtimes: {
            type: 'array',
            maxItems: 20,
            default: [],
            items: { type: 'string', minLength: 1, maxLength: 20 },
          },
        },
      },
      response: {
        200: {
          type: 'object',
          required: ['agentId', 'accountId'],
          properties: { agentId: { type: 'string' }, accountId: { type: 'string' } },
        },
        ...errors,
      },
    },
    handler: async (request) => {
      const body = request.body as {
        agentId: string
        flavor: 'full' | 'uptime'
        version: string
        location: string
        checkTypes: string[]
        runtimes: string[]
      }
      // The uptime flavor never gets Playwright work, whatever it claims to support.
      const uptime = ['URL', 'DNS', 'TCP', 'ICMP', 'HEARTBEAT']
      const checkTypes =
        body.flavor === 'uptime' ? body.checkTypes.filter((t) => uptime.includes(t)) : body.checkTypes
      await store.registerAgent(request.accountId, {
        id: body.agentId,
        flavor: body.flavor,
        version: body.version,
        location: body.location,
        checkTypes,
        runtimes: body.flavor === 'uptime' ? [] : body.runtimes,
      })
      return { agentId: body.agentId, accountId: request.accountId }
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/agent/jobs/claim',
    schema: {
      summary: 'Long-poll: waits up to waitSeconds for jobs this agent can run and leases them to it',
      headers: accountHeader,
      body: {
        type: 'object',
        required: ['agentId'],
        additionalProperties: false,
        properties: {
          agentId,
          max: {
            type: 'integer',
            minimum: 1,
            maximum: 100,
            default: 1,
            description: 'jobs at most, without groups',
          },
          groups: {
            type: 'array',
            minItems: 1,
            maxItems: 10,
            description:
              'at most `max` jobs of each group of check types (for example light and heavy slots)',
            items: {
              type: 'object',
              required: ['checkTypes', 'max'],
              additionalProperties: false,
              properties: {
                checkTypes: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 20,
                  items: { type: 'string', minLength: 1, maxLength: 40 },
                },
                max: { type: 'integer', minimum: 0, maximum: 100 },
              },
            },
          },
          waitSeconds: { type: 'integer', minimum: 0, maximum: 30, default: 20 },
        },
      },
      response: {
        200: {
          type: 'object',
          required: ['jobs'],
          properties: {
            jobs: {
              type: 'array',
              items: {
                type: 'object',
                required: ['id', 'check', 'dueAt', 'attempt', 'testSession', 'leaseUntil'],
                properties: {
                  id: { type: 'string' },
                  check: { type: 'object', additionalProperties: true },
                  dueAt: { type: 'integer' },
                  attempt: { type: 'integer' },
                  sessionId: { type: 'string' },
                  testSession: { type: 'boolean' },
                  leaseUntil: { type: 'integer' },
                },
              },
            },
          },
        },
        409: errorSchema,
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const body = request.body as {
        agentId: string
        max: number
        waitSeconds: number
        groups?: Array<{ checkTypes: string[]; max: number }>
      }
      const groups = body.groups ?? [{ max: body.max }]
      const deadline = deps.now() + body.waitSeconds * 1000
      const gone = new AbortController()
      // The response closing before we answered means the client went away.
      reply.raw.once('close', () => gone.abort())
      for (;;) {
        const jobs = await store.claim(request.accountId, body.agentId, groups)
        if (jobs === null) {
          throw new HttpError(
            409,
            `agent ${JSON.stringify(body.agentId)} is not registered: POST /v1/agent/register first`,
          )
        }
        if (jobs.length > 0 || gone.signal.aborted || deps.notifier.closed) return { jobs }
        const left = deadline - deps.now()
        if (left <= 0) return { jobs }
        // Other replicas do not notify this one: look again at least every 500 ms.
        await deps.notifier.wait(Math.min(left, 500), gone.signal)
      }
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/agent/jobs/:runId/lease',
    schema: {
      summary: 'Extends the lease of a job the agent is still running',
      params: {
        type: 'object',
        required: ['runId'],
        properties: { runId: { type: 'string', pattern: runIdPattern } },
      },
      headers: accountHeader,
      body: { type: 'object', required: ['agentId'], additionalProperties: false, properties: { agentId } },
      response: {
        200: { type: 'object', required: ['leaseUntil'], properties: { leaseUntil: { type: 'integer' } } },
        409: errorSchema,
        ...errors,
      },
    },
    handler: async (request) => {
      const { runId } = request.params as { runId: string }
      const body = request.body as { agentId: string }
      const leaseUntil = await store.renewLease(request.accountId, body.agentId, runId)
      if (leaseUntil === null) {
        throw new HttpError(
          409,
          `job ${runId} is not held by agent ${body.agentId} (finished, expired or leased elsewhere)`,
        )
      }
      return { leaseUntil }
    },
  })

  table.add(app, {
    method: 'POST',
    url: '/v1/agent/results',
    schema: {
      summary:
        'Reports a CheckResult; idempotent by its id (the run id): 201 the first time, 200 after. A result ' +
        'arriving after the hub recorded the run as JOB_EXPIRED replaces that placeholder (201, replaced: true)',
      headers: accountHeader,
      body: checkResultSchema,
      response: {
        200: {
          type: 'object',
          required: ['id', 'duplicate'],
          properties: { id: { type: 'string' }, duplicate: { type: 'boolean' } },
        },
        201: {
          type: 'object',
          required: ['id', 'duplicate'],
          properties: {
            id: { type: 'string' },
            duplicate: { type: 'boolean' },
            replaced: {
              type: 'boolean',
              description:
                'true when this result took the place of the JOB_EXPIRED result the hub had recorded',
            },
          },
        },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const result = request.body as IncomingResult & { agent: { id?: unknown } }
      const agent = typeof result.agent.id === 'string' ? result.agent.id : null
      const outcome = await store.recordResult(request.accountId, result, agent)
      if (outcome === 'duplicate') return reply.code(200).send({ id: result.id, duplicate: true })
      if (outcome === 'replaced') {
        request.log.info(
          { runId: result.id, checkId: result.checkId, agentId: agent },
          `run ${result.id} reported after it was recorded as JOB_EXPIRED: its result replaced the placeholder`,
        )
      }
      deps.notifier.notify()
      return reply
        .code(201)
        .send({ id: result.id, duplicate: false, ...(outcome === 'replaced' ? { replaced: true } : {}) })
    },
  })

  app.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload))

  table.add(app, {
    method: 'PUT',
    url: '/v1/agent/artifacts/:runId/:name',
    bodyContentType: 'application/octet-stream',
    schema: {
      summary: `Uploads one artifact of a run, streamed to disk; 413 above the size limit`,
      params: {
        type: 'object',
        required: ['runId', 'name'],
        properties: {
          runId: { type: 'string', pattern: runIdPattern },
          name: { type: 'string', pattern: artifactNamePattern },
        },
      },
      headers: accountHeader,
      response: {
        201: {
          type: 'object',
          required: ['name', 'size', 'sha256', 'location'],
          properties: {
            name: { type: 'string' },
            size: { type: 'integer' },
            sha256: { type: 'string' },
            location: { type: 'string' },
          },
        },
        411: errorSchema,
        413: errorSchema,
        415: errorSchema,
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const { runId, name } = request.params as { runId: string; name: string }
      const limit = deps.maxArtifactBytes
      const declared = Number(request.headers['content-length'])
      if (Number.isFinite(declared) && declared > limit) {
        // The body is not read: the client learns at once instead of after sending 150 MB.
        reply.header('connection', 'close')
        throw new HttpError(
          413,
          `artifact ${name} is ${declared} bytes; the limit is ${limit} bytes (150 MB)`,
        )
      }
      const body = request.body as NodeJS.ReadableStream | undefined
      if (body === undefined || typeof (body as { pipe?: unknown }).pipe !== 'function') {
        throw new HttpError(415, 'send the artifact as Content-Type: application/octet-stream')
      }
      const dir = path.join(deps.dataDir, 'artifacts', request.accountId, runId)
      await mkdir(dir, { recursive: true })
      const final = path.join(dir, name)
      const partial = partialUploadPath(dir, name)
      const hash = createHash('sha256')
      let size = 0
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length
          if (size > limit) {
            callback(new HttpError(413, `artifact ${name} exceeds the limit of ${limit} bytes (150 MB)`))
            return
          }
          hash.update(chunk)
          callback(null, chunk)
        },
      })
      try {
        // flush: on disk before the rename makes it the artifact, so a crash never leaves a short one.
        await pipeline(body, meter, createWriteStream(partial, { flush: true }))
      } catch (error) {
        await rm(partial, { force: true })
        if (error instanceof HttpError) reply.header('connection', 'close')
        throw error
      }
      await rename(partial, final)
      const sha256 = hash.digest('hex')
      await store.recordArtifact(request.accountId, { runId, name, size, sha256, path: final })
      return reply.code(201).send({ name, size, sha256, location: `/v1/artifacts/${runId}/${name}` })
    },
  })
}

export function registerArtifactDownload(app: FastifyInstance, table: RouteTable, store: HubStore): void {
  table.add(app, {
    method: 'GET',
    url: '/v1/artifacts/:runId/:name',
    schema: {
      summary: 'Downloads an artifact uploaded by an agent (the location in its CheckResult)',
      params: {
        type: 'object',
        required: ['runId', 'name'],
        properties: {
          runId: { type: 'string', pattern: runIdPattern },
          name: { type: 'string', pattern: artifactNamePattern },
        },
      },
      headers: accountHeader,
      response: {
        200: { type: 'string', description: 'the artifact bytes (application/octet-stream)' },
        ...errors,
      },
    },
    handler: async (request, reply) => {
      const { runId, name } = request.params as { runId: string; name: string }
      const artifact = await store.findArtifact(request.accountId, runId, name)
      if (artifact === null) throw new HttpError(404, `artifact ${name} of run ${runId} not found`)
      return reply
        .type('application/octet-stream')
        .header('content-length', artifact.size)
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(createReadStream(artifact.path))
    },
  })
}
