import { DnsAssertionBuilder, DnsMonitor, Frequency } from 'outpost'
import { EXAMPLE_DNS_PORT, EXAMPLE_NAME, startExampleDnsServer } from '../support/loopback-dns-server.ts'

// A DNS monitor needs a name server; offline there is none, so this example brings a tiny one
// (see ../support). Point `nameServer` at your own, or leave it out to use the system resolver.
startExampleDnsServer()

new DnsMonitor('agent-dns', {
  name: 'Example zone (DNS)',
  frequency: Frequency.EVERY_1M,
  request: {
    query: EXAMPLE_NAME,
    recordType: 'A',
    nameServer: '127.0.0.1',
    port: EXAMPLE_DNS_PORT,
    assertions: [
      DnsAssertionBuilder.responseCode().equals('NOERROR'),
      DnsAssertionBuilder.textAnswer().contains('127.0.0.1'),
    ],
  },
})
