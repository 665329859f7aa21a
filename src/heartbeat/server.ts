// Heartbeat ping ingress (AGENT_HEARTBEAT_PORT), with healthchecks.io's URL scheme and answers:
//   GET|POST|HEAD /ping/<token>                 success
//   GET|POST|HEAD /ping/<token>/start           a run started (pairs with its end by ?rid=)
//   GET|POST|HEAD /ping/<token>/fail            failure
//   GET|POST|HEAD /ping/<token>/log             kept, changes nothing
//   GET|POST|HEAD /ping/<token>/<exit-status>   0 success, 1..255 failure, above 255 -> 400
// 200 "OK" when recorded, 404 "not found" for an unknown token, 400 with the reason for a bad rid or
// exit status. Every answer carries Ping-Body-Limit; bodies beyond it are cut, not refused.

import { type FastifyInstance, type FastifyReply, type FastifyRequest, fastify } from 'fastify'
import type { Scrubber } from '../secrets/scrubber.ts'
import type { Logger } from '../telemetry/logger.ts'
import { type CapturedBody, captureBody, keptBodyText, PING_BODY_LIMIT_BYTES } from './ping-body.ts'
import type { PingInput, PingKind } from './state.ts'
import type { HeartbeatStore } from './store.ts'

/** Errors of the agent's disk while the ping's state is written, worded for the sender. */
const STORAGE_FAILURES = new Map([
  ['ENOSPC', "the agent's disk is full"],
  ['EDQUOT', "the agent's disk quota is used up"],
  ['EROFS', "the agent's data directory is read-only"],
  ['EIO', "the agent's disk failed to write"],
])

export interface HeartbeatServerOptions {
  store: Pick<HeartbeatStore, 'isKnown' | 'recordPing'>
  scrubber: Scrubber
  log: Logger
  port: number
  /** 0.0.0.0 in containers so jobs elsewhere can reach it; tests use 127.0.0.1. */
  host?: string
  now?: () => number
  bodyLimitBytes?: number
  /** Bodies beyond this are refused with 413 rather than read. */
  maxRequestBytes?: number
}

export interface HeartbeatServer {
  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(): Promise<{ port: number; url: string }>
  close(): Promise<void>
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const MAX_EXIT_STATUS = 255

type PingAction = { kind: PingKind; exitStatus?: number } | { error: string; statusCode: 400 | 404 }

/** The meaning of the path part after the token. */
export function parsePingAction(action: string | undefined): PingAction {
  if (action === undefined || action === '') return { kind: 'success' }
  if (action === 'start' || action === 'fail' || action === 'log') return { kind: action }
  if (/^\d+$/.test(action)) {
    const exitStatus = Number(action)
    if (exitStatus > MAX_EXIT_STATUS) {
      return { error: `invalid exit status ${action}: allowed 0 to ${MAX_EXIT_STATUS}`, statusCode: 400 }
    }
    return exitStatus === 0 ? { kind: 'success', exitStatus } : { kind: 'fail', exitStatus }
  }
  return { error: 'not found', statusCode: 404 }
}

export function createHeartbeatServer(options: HeartbeatServerOptions): HeartbeatServer {
  const now = options.now ?? Date.now
  const bodyLimit = options.bodyLimitBytes ?? PING_BODY_LIMIT_BYTES
  const maxRequestBytes = options.maxRequestBytes ?? 16 * 1024 * 1024
  const app: FastifyInstance = fastify({
    logger: false,
    requestTimeout: 60_000,
    bodyLimit: maxRequestBytes,
    // Tokens may be 128 characters, beyond fastify's default of 100; a longer path is simply an
    // unknown token (404), not a JSON error that echoes the whole path back. Node caps the request
    // line at 16 KB anyway.
    maxParamLength: 16 * 1024,
  })

  // Any content type: a ping body is whatever the job sends (logs, JSON, nothing); only its head is read.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', (_request, payload, done) => {
    captureBody(payload, bodyLimit, maxRequestBytes).then(
      (captured) => {
        if ('tooLarge' in captured) {
          const error = Object.assign(new Error(`ping body over ${maxRequestBytes} bytes`), {
            statusCode: 413,
          })
          done(error, undefined)
        } else done(null, captured)
      },
      (error: Error) => done(error, undefined),
    )
  })

  const handle = async (
    request: FastifyRequest<{ Params: { token: string; action?: string }; Querystring: { rid?: string } }>,
    reply: FastifyReply,
  ): Promise<string> => {
    reply.header('Ping-Body-Limit', String(bodyLimit))
    reply.header('Access-Control-Allow-Origin', '*')
    reply.type('text/plain; charset=utf-8')
    const action = parsePingAction(request.params.action)
    if ('error' in action) {
      reply.code(action.statusCode)
      return action.error
    }
    const rid = request.query.rid
    if (rid !== undefined && rid !== '' && !UUID.test(rid)) {
      reply.code(400)
      return 'invalid rid: it must be a UUID'
    }
    const { token } = request.params
    if (!options.store.isKnown(token)) {
      reply.code(404)
      return 'not found'
    }
    const captured = request.body as CapturedBody | undefined
    const ping: PingInput = {
      at: now(),
      kind: action.kind,
      method: request.method,
      remoteAddress: request.ip,
      ...(action.exitStatus !== undefined ? { exitStatus: action.exitStatus } : {}),
      ...(rid ? { rid: rid.toLowerCase() } : {}),
      ...userAgentOf(request, options.scrubber),
      ...(captured && captured.totalBytes > 0
        ? { body: keptBodyText(captured.head, bodyLimit, options.scrubber), bodyBytes: captured.totalBytes }
        : {}),
    }
    const state = await options.store.recordPing(token, ping)
    if (!state) {
      reply.code(404)
      return 'not found'
    }
    options.log.debug(
      {
        checkId: state.checkId,
        kind: ping.kind,
        exitStatus: ping.exitStatus,
        durationMs: state.lastDurationMs,
      },
      'heartbeat ping',
    )
    return 'OK'
  }

  for (const url of ['/ping/:token', '/ping/:token/:action']) {
    // HEAD is added by fastify for every GET route (exposeHeadRoutes) and runs the same handler.
    app.route({ method: ['GET', 'POST'], url, handler: handle })
  }

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    const storage = error.code === undefined ? undefined : STORAGE_FAILURES.get(error.code)
    if (storage !== undefined) {
      // The ping was not recorded, and the sender should try again (healthchecks.io clients retry
      // on 5xx): 503 says so, with the cause, where a 500 would read as a bug.
      options.log.error({ err: error }, `heartbeat ping not recorded: ${storage}`)
      reply
        .code(503)
        .header('Retry-After', '10')
        .header('Ping-Body-Limit', String(bodyLimit))
        .type('text/plain; charset=utf-8')
        .send(`ping not recorded: ${storage}; try again`)
      return
    }
    const statusCode =
      error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500
    if (statusCode === 500) options.log.error({ err: error }, 'heartbeat ingress error')
    reply
      .code(statusCode)
      .header('Ping-Body-Limit', String(bodyLimit))
      .type('text/plain; charset=utf-8')
      .send(statusCode === 500 ? 'internal error' : options.scrubber.text(error.message))
  })

  return {
    async listen() {
      await app.listen({ port: options.port, host: options.host ?? '0.0.0.0' })
      const address = app.server.address()
      const port = typeof address === 'object' && address !== null ? address.port : options.port
      const host = options.host ?? '0.0.0.0'
      return { port, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` }
    },
    close: () => app.close(),
  }
}

function userAgentOf(request: FastifyRequest, scrubber: Scrubber): { userAgent?: string } {
  const value = request.headers['user-agent']
  return typeof value === 'string' && value !== '' ? { userAgent: scrubber.text(value).slice(0, 200) } : {}
}
