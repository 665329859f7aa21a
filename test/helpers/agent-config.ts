import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { type AgentConfig, loadAgentConfig } from '../../src/config/agent-config.ts'

/** A real agent configuration for tests: loopback only, ephemeral ports, a fresh data dir. */
export async function testAgentConfig(env: Record<string, string> = {}): Promise<Readonly<AgentConfig>> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'outpost-agent-'))
  return loadAgentConfig(
    {
      AGENT_HEALTH_PORT: '0',
      AGENT_HEARTBEAT_PORT: '0',
      AGENT_LISTEN_HOST: '127.0.0.1',
      AGENT_DATA_DIR: dataDir,
      ...env,
    },
    dataDir,
  )
}
