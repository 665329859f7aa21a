// The health server Kubernetes and load balancers probe. Bodies say only the state: no
// configuration, no secrets, no auth. It shares the event loop with the light probes, which only
// ever await I/O, so it answers promptly even with every queue full.

import Fastify, { type FastifyInstance } from 'fastify'
import type { AgentMetrics } from '../telemetry/metrics.ts'
import type { Lifecycle } from './lifecycle.ts'

export interface HealthServerOptions {
  lifecycle: Lifecycle
  metrics: AgentMetrics
  host: string
  port: number
}

export interface HealthServer {
  /** The port actually bound (differs from the option when it was 0). */
  port: number
  close(): Promise<void>
}

export function buildHealthApp(options: Pick<HealthServerOptions, 'lifecycle' | 'metrics'>): FastifyInstance {
  const app = Fastify({ logger: false })
  app.get('/-/readiness', async (_request, reply) => {
    const state = options.lifecycle.state()
    return reply.code(state === 'ready' ? 200 : 503).send({ status: state })
  })
  app.get('/-/liveness', async () => ({ status: 'alive' }))
  app.get('/health', async () => ({ status: 'ok' }))
  app.get('/metrics', async (_request, reply) => {
    const body = await options.metrics.registry.metrics()
    return reply.type(options.metrics.registry.contentType).send(body)
  })
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({
      statusCode: 404,
      error: 'Not Found',
      message: `no route ${request.method} ${request.url.split('?')[0]}`,
    }),
  )
  return app
}

export async function startHealthServer(options: HealthServerOptions): Promise<HealthServer> {
  const app = buildHealthApp(options)
  await app.listen({ host: options.host, port: options.port })
  const address = app.server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return { port, close: () => app.close() }
}
