import { Frequency, TcpAssertionBuilder, TcpMonitor } from 'outpost'
import { AGENT_HEALTH_PORT } from '../support/agent-address.ts'

// The health port accepts connections whenever the agent runs.
new TcpMonitor('agent-health-tcp', {
  name: 'Agent health port (TCP)',
  frequency: Frequency.EVERY_1M,
  request: {
    hostname: '127.0.0.1',
    port: AGENT_HEALTH_PORT,
    assertions: [TcpAssertionBuilder.responseTime().lessThan(500)],
  },
})
