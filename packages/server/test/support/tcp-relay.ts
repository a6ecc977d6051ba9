/**
 * `node tcp-relay.ts <listen-host> <listen-port> <target-host> <target-port>`: the TCP proxy of
 * tcp-proxy.ts as a process, to run inside a test host's network namespace (`ip netns exec`):
 * a webhook sent to that host's loopback reaches the test's receiver at the gateway.
 */
import { startTcpProxy } from './tcp-proxy.ts';

const [listenHost, listenPort, targetHost, targetPort] = process.argv.slice(2);
await startTcpProxy([{ host: targetHost as string, port: Number(targetPort) }], {
  host: listenHost as string,
  port: Number(listenPort),
});
console.log('relaying');
