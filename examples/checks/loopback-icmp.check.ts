import { Frequency, IcmpAssertionBuilder, IcmpMonitor } from 'outpost'

// Loopback always answers pings; a real monitor would name a host in your network.
new IcmpMonitor('loopback-icmp', {
  name: 'Loopback reachable (ICMP)',
  frequency: Frequency.EVERY_1M,
  request: {
    hostname: '127.0.0.1',
    pingCount: 3,
    assertions: [IcmpAssertionBuilder.latency('avg').lessThan(100)],
  },
  degradedPacketLossThreshold: 10,
  maxPacketLossThreshold: 20,
})
