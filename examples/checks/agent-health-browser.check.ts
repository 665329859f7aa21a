import { BrowserCheck, Frequency } from 'outpost'

// A real browser (chromium) opening the agent's health page.
new BrowserCheck('agent-health-browser', {
  name: 'Agent health (browser)',
  frequency: Frequency.EVERY_10M,
  code: {
    content: `
import { expect, test } from '@playwright/test'

test('health page loads', async ({ page }) => {
  const response = await page.goto('http://127.0.0.1:8081/health')
  expect(response?.status()).toBe(200)
})
`,
  },
})
