// The availability figures the hub serves at GET /v1/checks/heartbeats/{checkId}/availability, from the
// heartbeat's period results. One pure function so the agent, the hub and tests agree on the numbers.
//
// - current window: startTime <= t <= endTime; previous window: the same length just before it
//   (startTime - length <= t < startTime), so no result counts twice.
// - successRatio figures are percentages (0..100, three decimals); passed and degraded count as success.
//   A window without results has ratio 0; totalEntitiesCurrentPeriod says whether the current one had any.
// - null when neither window holds a result (the API then answers with a null body).

export interface AvailabilityEvent {
  /** Epoch ms of the result (its startedAt). */
  time: number
  status: 'passed' | 'degraded' | 'failed'
}

export interface HeartbeatAvailability {
  successRatio: { previousPeriod: number; currentPeriod: number }
  totalEntitiesCurrentPeriod: number
}

export function availability(
  events: Iterable<AvailabilityEvent>,
  startTime: number,
  endTime: number,
): HeartbeatAvailability | null {
  if (!Number.isFinite(startTime) || !Number.isFinite(endTime) || startTime >= endTime) {
    throw new RangeError(
      `availability: startTime (${startTime}) must be a time before endTime (${endTime}), in epoch ms`,
    )
  }
  const previousStart = startTime - (endTime - startTime)
  const current = { total: 0, success: 0 }
  const previous = { total: 0, success: 0 }
  for (const event of events) {
    const window =
      event.time >= startTime && event.time <= endTime
        ? current
        : event.time >= previousStart && event.time < startTime
          ? previous
          : null
    if (window === null) continue
    window.total += 1
    if (event.status !== 'failed') window.success += 1
  }
  if (current.total === 0 && previous.total === 0) return null
  return {
    successRatio: { previousPeriod: ratio(previous), currentPeriod: ratio(current) },
    totalEntitiesCurrentPeriod: current.total,
  }
}

function ratio(window: { total: number; success: number }): number {
  if (window.total === 0) return 0
  return Math.round((window.success / window.total) * 100_000) / 1000
}
