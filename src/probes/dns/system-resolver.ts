// The resolver the OS would ask first: Node's view of /etc/resolv.conf (dns.getServers()), which
// lists servers as "1.2.3.4", "1.2.3.4:5353", "::1" or "[::1]:5353".

export interface NameServer {
  address: string
  port: number
}

export function parseServerEntry(entry: string): NameServer {
  const bracketed = /^\[(.+)\]:(\d+)$/.exec(entry)
  if (bracketed) return { address: bracketed[1] as string, port: Number(bracketed[2]) }
  const v4 = /^([\d.]+):(\d+)$/.exec(entry)
  if (v4) return { address: v4[1] as string, port: Number(v4[2]) }
  return { address: entry, port: 53 }
}

export function firstSystemResolver(getServers: () => string[]): NameServer | undefined {
  const first = getServers()[0]
  return first === undefined ? undefined : parseServerEntry(first)
}
