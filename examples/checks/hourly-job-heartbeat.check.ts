import { HeartbeatMonitor } from 'outpost'

// A job you run pings this check's URL when it finishes; no ping within period + grace means down.
// Without pingToken, the token is derived from the logicalId (stable, but guessable by whoever knows
// the id): set pingToken to a random string of your own for a secret ping URL.
new HeartbeatMonitor('hourly-job-heartbeat', {
  name: 'Hourly job heartbeat',
  period: 1,
  periodUnit: 'hours',
  grace: 10,
  graceUnit: 'minutes',
})
