// Runs one of our probes in a child process, so a test can run it inside a network namespace or as
// another user (`ip netns exec`, `setpriv`). Takes one JSON argument, prints one JSON line.
//   {"kind":"icmp","check":IcmpCheck,"command"?:string}  -> ProbeOutcome
//   {"kind":"family","requested":"IPv6","host":"localhost"} -> FamilyDecision
//   {"kind":"capability","command"?:string}              -> IcmpCapability

import { pino } from 'pino'
import type { IcmpCheck, IpFamily } from '../../src/model/checks.ts'
import { createIcmpProbe } from '../../src/probes/icmp.ts'
import { detectIcmpCapability } from '../../src/probes/icmp-capability.ts'
import { resolveFamily } from '../../src/probes/ip-family.ts'

type Request =
  | { kind: 'icmp'; check: IcmpCheck; command?: string }
  | { kind: 'family'; requested: IpFamily; host: string }
  | { kind: 'capability'; command?: string }

async function run(request: Request): Promise<unknown> {
  if (request.kind === 'icmp') {
    const probe = createIcmpProbe(request.command ? { command: request.command } : {})
    return probe(request.check, {
      signal: AbortSignal.timeout(60_000),
      log: pino({ level: 'silent' }),
      runDir: '/tmp',
      testSession: true,
    })
  }
  if (request.kind === 'family') return resolveFamily(request.requested, request.host)
  return detectIcmpCapability(request.command ? { command: request.command } : {})
}

const argument = process.argv[2]
if (!argument) {
  process.stderr.write('usage: netns-probe-runner.ts <json request>\n')
  process.exit(2)
}
process.stdout.write(`${JSON.stringify(await run(JSON.parse(argument) as Request))}\n`)
