// Prometheus metrics for one agent. A registry per agent (never prom-client's global one) so that
// tests and benches can run several agents in one process.

import { monitorEventLoopDelay } from 'node:perf_hooks'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

export interface AgentMetrics {
  registry: Registry
  queueDepth: Gauge<'queue'>
  queueInFlight: Gauge<'queue'>
  jobsStarted: Counter<'type'>
  jobsFinished: Counter<'type' | 'status'>
  jobDuration: Histogram<'type'>
  skippedRuns: Counter<'type'>
  startLag: Histogram<'queue'>
  /** Stops the event-loop sampler. */
  close(): void
}

export function createAgentMetrics(info: { version: string; flavor: string }): AgentMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'outpost_process_' })
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()

  new Gauge({
    name: 'outpost_agent_info',
    help: 'Agent version and flavor; always 1',
    labelNames: ['version', 'flavor'],
    registers: [registry],
  }).set({ version: info.version, flavor: info.flavor }, 1)

  new Gauge({
    name: 'outpost_event_loop_lag_seconds',
    help: 'Event-loop delay since the last scrape, by quantile',
    labelNames: ['quantile'],
    registers: [registry],
    collect() {
      // Reset after each scrape so the figure describes the recent past, not the whole uptime.
      this.set({ quantile: '0.5' }, loopDelay.percentile(50) / 1e9)
      this.set({ quantile: '0.99' }, loopDelay.percentile(99) / 1e9)
      this.set({ quantile: '1' }, loopDelay.max / 1e9)
      loopDelay.reset()
    },
  })

  return {
    registry,
    queueDepth: new Gauge({
      name: 'outpost_queue_depth',
      help: 'Jobs waiting in a queue',
      labelNames: ['queue'],
      registers: [registry],
    }),
    queueInFlight: new Gauge({
      name: 'outpost_queue_in_flight',
      help: 'Jobs running from a queue',
      labelNames: ['queue'],
      registers: [registry],
    }),
    jobsStarted: new Counter({
      name: 'outpost_jobs_started_total',
      help: 'Jobs started, by check type',
      labelNames: ['type'],
      registers: [registry],
    }),
    jobsFinished: new Counter({
      name: 'outpost_jobs_finished_total',
      help: 'Jobs finished, by check type and result status',
      labelNames: ['type', 'status'],
      registers: [registry],
    }),
    jobDuration: new Histogram({
      name: 'outpost_job_duration_seconds',
      help: 'Job duration, by check type',
      labelNames: ['type'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 3600],
      registers: [registry],
    }),
    skippedRuns: new Counter({
      name: 'outpost_skipped_runs_total',
      help: 'Scheduled runs skipped because the previous run of the same check was still going',
      labelNames: ['type'],
      registers: [registry],
    }),
    startLag: new Histogram({
      name: 'outpost_job_start_lag_seconds',
      help: 'Delay between a run being due and it starting, by queue',
      labelNames: ['queue'],
      buckets: [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5, 1, 5, 30],
      registers: [registry],
    }),
    close: () => loopDelay.disable(),
  }
}
