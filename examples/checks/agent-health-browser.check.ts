import { BrowserCheck, Frequency } from 'outpost'
import { AGENT_HEALTH_URL } from '../support/agent-address.ts'

// A real browser (chromium) opening the agent's health page.
new BrowserCheck('agent-health-browser', {
  name: 'Agent health (browser)',
  frequency: Frequency.EVERY_10M,
  code: {
    content: `
import { expect, test } from '@playwright/test'

test('health page loads', async ({ page }) => {
  const response = await page.goto('${AGENT_HEALTH_URL}/health')
  expect(response?.status()).toBe(200)
})
`,
  },
})
