import { Frequency, UrlAssertionBuilder, UrlMonitor } from 'outpost'
import { AGENT_HEALTH_URL } from '../support/agent-address.ts'

// The agent's own health endpoint, so this passes on any machine the agent runs on, internet or not.
// EVERY_10S so a first run shows results within seconds.
new UrlMonitor('agent-health-url', {
  name: 'Agent health (URL)',
  frequency: Frequency.EVERY_10S,
  request: {
    url: `${AGENT_HEALTH_URL}/health`,
    assertions: [
      UrlAssertionBuilder.statusCode().equals(200),
      UrlAssertionBuilder.responseTime().lessThan(1000),
    ],
  },
  degradedResponseTime: 500,
  maxResponseTime: 2000,
})
