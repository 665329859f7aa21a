import { Frequency, MultiStepCheck } from 'outpost'
import { AGENT_HEALTH_URL } from '../support/agent-address.ts'

// Three requests in sequence, each its own named step, against the agent's own health server.
new MultiStepCheck('agent-endpoints-multistep', {
  name: 'Agent endpoints (multistep)',
  frequency: Frequency.EVERY_10M,
  code: {
    content: `
import { expect, test } from '@playwright/test'

const base = '${AGENT_HEALTH_URL}'

test('agent endpoints answer', async ({ request }) => {
  await test.step('health', async () => {
    const response = await request.get(base + '/health')
    expect(response.status()).toBe(200)
  })
  await test.step('liveness', async () => {
    const response = await request.get(base + '/-/liveness')
    expect(response.status()).toBe(200)
  })
  await test.step('readiness', async () => {
    const response = await request.get(base + '/-/readiness')
    expect(response.status()).toBe(200)
  })
})
`,
  },
})
