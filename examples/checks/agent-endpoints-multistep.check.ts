import { Frequency, MultiStepCheck } from 'outpost'

// Three requests in sequence, each its own named step, against the agent's own health server.
new MultiStepCheck('agent-endpoints-multistep', {
  name: 'Agent endpoints (multistep)',
  frequency: Frequency.EVERY_10M,
  code: {
    content: `
import { expect, test } from '@playwright/test'

const base = 'http://127.0.0.1:8081'

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
