// Under heavy load a client can reuse a keep-alive connection at the moment the
// server's 5 s idle timeout closes it, and the request fails with ECONNRESET. Test
// files that pause between requests (building fixtures) keep idle connections open
// for longer than any such pause.
import type { TestServer } from './server.ts';

export function keepIdleConnectionsOpen(server: TestServer, ms = 120_000): void {
  server.app.server.keepAliveTimeout = ms;
}
