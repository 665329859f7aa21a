import { Frequency, TcpAssertionBuilder, TcpMonitor } from 'outpost'

// The health port accepts connections whenever the agent runs.
new TcpMonitor('agent-health-tcp', {
  name: 'Agent health port (TCP)',
  frequency: Frequency.EVERY_1M,
  request: {
    hostname: '127.0.0.1',
    port: 8081,
    assertions: [TcpAssertionBuilder.responseTime().lessThan(500)],
  },
})
