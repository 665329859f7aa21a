// Connects an agent to a hub: jobs claimed from it, results spooled and delivered to it. A rejected
// API key stops the agent and ends the process with a usage error naming the cause.

import type { AgentExecutors } from '../agent/default-executors.ts'
import { supportedTypes } from '../agent/executors.ts'
import type { JobSource } from '../agent/job-source.ts'
import { mergeSources } from '../agent/merged-source.ts'
import { createRemoteParts } from '../agent/remote/index.ts'
import type { AgentInfo } from '../model/result.ts'
import type { AgentSetup } from './agent-setup.ts'
import type { AgentWiring } from './run-agent.ts'

export interface RemoteWiringOptions {
  setup: AgentSetup
  executors: AgentExecutors
  info: AgentInfo
  /** Local checks run beside the hub's jobs (`outpost start`); their results go to the hub too. */
  local?: JobSource
  /** Keep results.ndjson as well as delivering to the hub. */
  keepLocalRecord: boolean
  /** Stops the agent (the hub refused the key). */
  stop(): void
}

export async function remoteWiring(options: RemoteWiringOptions): Promise<AgentWiring> {
  const { setup } = options
  let rejected: string | undefined
  const remote = await createRemoteParts({
    config: setup.config,
    log: setup.log,
    scrubber: setup.scrubber,
    info: options.info,
    checkTypes: supportedTypes(options.executors.table, setup.config.flavor),
    onRejectedKey: (error) => {
      rejected ??= error.message
      options.stop()
    },
  })
  return {
    source: options.local ? mergeSources([options.local, remote.source]) : remote.source,
    ...(options.keepLocalRecord ? { extraSinks: [remote.sink] } : { sink: remote.sink }),
    close: () => remote.close(),
    fatal: () => rejected,
  }
}
