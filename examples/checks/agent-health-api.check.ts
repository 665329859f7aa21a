import { ApiCheck, AssertionBuilder, Frequency } from 'outpost'
import { AGENT_HEALTH_URL } from '../support/agent-address.ts'

// One request with assertions on status, header and time, against the agent's own health server.
new ApiCheck('agent-health-api', {
  name: 'Agent health (API)',
  frequency: Frequency.EVERY_1M,
  request: {
    url: `${AGENT_HEALTH_URL}/health`,
    method: 'GET',
    assertions: [AssertionBuilder.statusCode().equals(200), AssertionBuilder.responseTime().lessThan(2000)],
  },
  degradedResponseTime: 1000,
  maxResponseTime: 5000,
})
