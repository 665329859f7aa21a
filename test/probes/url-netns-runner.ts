// Runs our URL or TCP probe in a child process, so a test can run it inside a network namespace
// (`ip netns exec`). Takes one JSON argument, prints the ProbeOutcome as one JSON line.
//   {"kind":"url","check":UrlCheck} | {"kind":"tcp","check":TcpCheck}

import type { TcpCheck, UrlCheck } from '../../src/model/checks.ts'
import { createTcpProbe } from '../../src/probes/tcp.ts'
import { createUrlProbe } from '../../src/probes/url.ts'
import { createScrubber } from '../../src/secrets/scrubber.ts'
import { createLogger } from '../../src/telemetry/logger.ts'

type Request = { kind: 'url'; check: UrlCheck } | { kind: 'tcp'; check: TcpCheck }

const argument = process.argv[2]
if (!argument) {
  process.stderr.write('usage: url-netns-runner.ts <json request>\n')
  process.exit(2)
}
const request = JSON.parse(argument) as Request
const ctx = {
  signal: AbortSignal.timeout(30_000),
  log: createLogger({ level: 'error', scrubber: createScrubber([]), pretty: false }),
  runDir: '/tmp',
  testSession: true,
}
const outcome =
  request.kind === 'url'
    ? await createUrlProbe()(request.check, ctx)
    : await createTcpProbe()(request.check, ctx)
process.stdout.write(`${JSON.stringify(outcome)}\n`)
