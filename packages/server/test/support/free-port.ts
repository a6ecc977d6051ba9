import { createServer } from 'node:net';

/**
 * A loopback port no one listens on a moment ago, from the kernel: the tests' servers and the
 * bench's (bench/run.ts) listen on it and name it in their base URL. A port picked at random
 * could be the local end of one of the process's own connections (Linux hands those out from
 * 32768–60999): EADDRINUSE.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}
