// Can this process send ICMP echo requests, and by which right? Called once at agent start and logged,
// so a missing `ping` or a missing permission shows up before the first ICMP check fails.
// Linux ping needs one of: root with CAP_NET_RAW, CAP_NET_RAW on the process or on the ping binary
// (Debian's default), a setuid-root ping, or the process's group inside net.ipv4.ping_group_range
// (unprivileged ICMP datagram sockets; Docker sets "0 2147483647" in containers).

import { execFile } from 'node:child_process'
import { constants } from 'node:fs'
import { access, readFile, stat } from 'node:fs/promises'
import { delimiter, isAbsolute, join } from 'node:path'
import { runPing } from './icmp-command.ts'

export type IcmpMethod = 'root' | 'cap_net_raw' | 'setuid' | 'ping_group_range' | 'none' | 'missing'

export interface IcmpCapability {
  available: boolean
  /** The right ping would use, as far as we can tell without root's view of the binary. */
  method: IcmpMethod
  /** Absolute path of the ping found, null when none was found. */
  pingPath: string | null
  message: string
}

export interface DetectIcmpCapabilityOptions {
  command?: string
  /** PATH to search; defaults to the agent's. */
  path?: string
  /** /proc root, for tests. */
  procRoot?: string
}

const CAP_NET_RAW_BIT = 13n

export const ICMP_INSTALL_HINT =
  'install ping: `apt-get install iputils-ping` (Debian/Ubuntu), `apk add iputils` (Alpine), `dnf install iputils` (Fedora/RHEL)'

export const ICMP_PERMISSION_HINT =
  'give ping the right to send ICMP: `setcap cap_net_raw+ep "$(command -v ping)"` (Debian does this by default), ' +
  'or allow unprivileged ICMP sockets for the agent\'s group: `sysctl -w net.ipv4.ping_group_range="0 2147483647"`; ' +
  'in Docker keep the NET_RAW capability (no `--cap-drop NET_RAW`), in Kubernetes add NET_RAW to securityContext.capabilities'

export async function detectIcmpCapability(
  options: DetectIcmpCapabilityOptions = {},
): Promise<IcmpCapability> {
  const command = options.command ?? 'ping'
  const searchPath = options.path ?? process.env.PATH ?? ''
  const procRoot = options.procRoot ?? '/proc'
  const pingPath = await findExecutable(command, searchPath)
  if (pingPath === null) {
    return {
      available: false,
      method: 'missing',
      pingPath: null,
      message: `ICMP checks cannot run: "${command}" was not found in PATH; ${ICMP_INSTALL_HINT}`,
    }
  }
  const method = await detectMethod(pingPath, procRoot)
  const verify = await runPing({
    command: pingPath,
    host: '127.0.0.1',
    family: 'IPv4',
    count: 1,
    intervalSeconds: 0.2,
    replyTimeoutSeconds: 1,
    signal: AbortSignal.timeout(10_000),
    path: searchPath,
  })
  if (verify.kind === 'exited' && verify.exitCode === 0) {
    return {
      available: true,
      method,
      pingPath,
      message: `ICMP available: ${pingPath} via ${describeMethod(method)}`,
    }
  }
  const reason =
    verify.kind === 'spawn-error'
      ? verify.message
      : verify.kind === 'aborted'
        ? 'a ping to 127.0.0.1 did not finish within 10 s'
        : (
            verify.stderr.trim() ||
            verify.stdout.trim() ||
            `ping exited with status ${verify.exitCode}`
          ).split('\n')[0]
  return {
    available: false,
    method,
    pingPath,
    message: `ICMP checks will fail: ${reason}; ${ICMP_PERMISSION_HINT}`,
  }
}

function describeMethod(method: IcmpMethod): string {
  if (method === 'root') return 'root with CAP_NET_RAW'
  if (method === 'cap_net_raw') return 'the CAP_NET_RAW capability'
  if (method === 'setuid') return 'a setuid-root ping'
  if (method === 'ping_group_range') return 'unprivileged ICMP sockets (net.ipv4.ping_group_range)'
  return 'an unidentified right'
}

async function detectMethod(pingPath: string, procRoot: string): Promise<IcmpMethod> {
  const status = await readFile(join(procRoot, 'self/status'), 'utf8').catch(() => '')
  const effective = capabilityHasNetRaw(status, 'CapEff')
  if (process.getuid?.() === 0 && effective) return 'root'
  if (effective) return 'cap_net_raw'
  if (await fileHasNetRaw(pingPath)) return 'cap_net_raw'
  const info = await stat(pingPath).catch(() => null)
  if (info !== null && (info.mode & 0o4000) !== 0 && info.uid === 0) return 'setuid'
  const range = await readFile(join(procRoot, 'sys/net/ipv4/ping_group_range'), 'utf8').catch(() => '')
  if (groupInRange(range, processGroups())) return 'ping_group_range'
  return 'none'
}

export function capabilityHasNetRaw(procStatus: string, field: 'CapEff' | 'CapPrm' | 'CapBnd'): boolean {
  const match = new RegExp(`^${field}:\\s*([0-9a-fA-F]+)`, 'm').exec(procStatus)
  if (!match?.[1]) return false
  return ((BigInt(`0x${match[1]}`) >> CAP_NET_RAW_BIT) & 1n) === 1n
}

/** ping_group_range is "low high"; the default "1 0" (low > high) allows nobody. */
export function groupInRange(range: string, groups: number[]): boolean {
  const [low, high] = range.trim().split(/\s+/).map(Number)
  if (low === undefined || high === undefined || !Number.isFinite(low) || !Number.isFinite(high)) return false
  return groups.some((g) => g >= low && g <= high)
}

function processGroups(): number[] {
  const groups = new Set<number>()
  const gid = process.getgid?.()
  if (gid !== undefined) groups.add(gid)
  for (const g of process.getgroups?.() ?? []) groups.add(g)
  return [...groups]
}

function fileHasNetRaw(path: string): Promise<boolean> {
  // getcap (libcap2-bin) reads the security.capability xattr, which Node cannot read itself.
  return new Promise((resolve) => {
    execFile(
      'getcap',
      [path],
      { timeout: 5000, env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' } },
      (error, stdout) => {
        resolve(!error && /cap_net_raw/i.test(stdout))
      },
    )
  })
}

async function findExecutable(command: string, searchPath: string): Promise<string | null> {
  const candidates = isAbsolute(command)
    ? [command]
    : searchPath
        .split(delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, command))
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK)
      return candidate
    } catch {
      // try the next directory
    }
  }
  return null
}
