// passed / degraded / failed for an API check, as Checkly decides it: a failed assertion fails the
// run; so does an error status (400 and above) unless `shouldFail` is set, which makes error
// statuses count as passed (successful responses still pass, and a failed assertion still fails);
// then the response-time limits apply.

import { decideStatus, type StatusDecision } from '../thresholds.ts'

export interface ApiVerdictInput {
  statusCode: number
  responseTimeMs: number
  degradedResponseTime: number
  maxResponseTime: number
  assertionFailures: readonly string[]
  shouldFail: boolean
}

export function decideApiStatus(input: ApiVerdictInput): StatusDecision {
  if (input.assertionFailures.length === 0 && input.statusCode >= 400 && !input.shouldFail) {
    return {
      status: 'failed',
      error: {
        code: 'HTTP_ERROR_STATUS',
        message:
          `response status ${input.statusCode} is an error status (400 and above); ` +
          'set shouldFail: true when the endpoint is expected to answer with one',
      },
    }
  }
  return decideStatus(input)
}
