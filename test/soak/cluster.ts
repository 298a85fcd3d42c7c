// What the soaks with several instances behind HAProxy share (`npm run soak:cluster`,
// `npm run soak:ha`): clean-ups that also run on Ctrl-C, Debian packages installed when
// missing, HAProxy in front of the instances, and a watch on which instances HAProxy keeps
// in rotation.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { exited, type Service } from '../support/service.ts';
import { waitFor } from '../webhooks/support.ts';

type Cleanup = () => Promise<void> | void;

/** Run in reverse on the way out, also on Ctrl-C: the servers a soak starts run detached and would outlive it. */
export const cleanups: Cleanup[] = [];

let cleaning: Promise<void> | undefined;

/** Runs the clean-ups once; a Ctrl-C during the run and the run's own ending both wait for the same one. */
export function cleanUp(name: string): Promise<void> {
  cleaning ??= (async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (error) {
        process.stderr.write(`${name}: clean-up step failed: ${(error as Error).message}\n`);
      }
    }
  })();
  return cleaning;
}

/** Runs `soak`, cleans up (also on Ctrl-C) and exits 0 when it passed, 1 when it failed or threw. */
export function runSoak(name: string, soak: () => Promise<boolean>): void {
  process.once('SIGINT', () => {
    void cleanUp(name).finally(() => process.exit(130));
  });
  soak()
    .then(async (passed) => {
      await cleanUp(name);
      process.exit(passed ? 0 : 1);
    })
    .catch(async (error) => {
      process.stderr.write(`${name} failed: ${(error as Error).stack}\n`);
      await cleanUp(name);
      process.exit(1);
    });
}

/** Installs the Debian packages whose command is missing, as .ci/run installs chromium. */
export function ensurePackages(name: string, wanted: { command: string; versionFlag: string; package: string }[]): void {
  const missing = wanted.filter(({ command, versionFlag }) => spawnSync(command, [versionFlag]).status !== 0).map((p) => p.package);
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) throw new Error(`${missing.join(', ')} not installed and this is not root: apt-get install ${missing.join(' ')}`);
  process.stdout.write(`${name}: installing ${missing.join(', ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { stdio: 'inherit', env });
}

export interface Instance {
  name: string;
  port: number;
  service?: Service;
}

/**
 * HAProxy in front of the instances. Health checks on /readyz take an instance out after two
 * failed checks and back after two good ones. A request whose connection is refused (an
 * instance just killed, not yet marked down) is retried on another instance; so is one that
 * got no answer or timed out, unless it is a POST: a POST in flight on an instance that died
 * may have committed, and sending it again would create the order or the adjustment twice.
 */
export function instancesHaproxyConfig(frontPort: number, statsPort: number, instances: Instance[], healthCheckIntervalMs: number): string {
  return `global
  maxconn 2000

defaults
  mode http
  timeout connect 500ms
  # Longer than the clients' idle keep-alive (4 s in Node's fetch), so that a client never
  # sends on a connection the balancer is closing.
  timeout client 60s
  timeout http-keep-alive 60s
  timeout server 30s
  timeout check 1s
  retries 3
  option redispatch 1
  retry-on conn-failure empty-response response-timeout

frontend api
  bind 127.0.0.1:${frontPort}
  default_backend instances

backend instances
  balance roundrobin
  option httpchk GET /readyz
  http-request disable-l7-retry if METH_POST
  http-response set-header X-Served-By %s
  default-server check inter ${healthCheckIntervalMs}ms fall 2 rise 2
${instances.map((i) => `  server ${i.name} 127.0.0.1:${i.port}`).join('\n')}

frontend stats
  bind 127.0.0.1:${statsPort}
  stats enable
  stats uri /stats
`;
}

/** Starts HAProxy on the configuration (written to `dir`), stopped by the clean-ups. */
export function startHaproxy(dir: string, config: string): { child: ChildProcess; output: () => string } {
  const file = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(file, config);
  const child = spawn('haproxy', ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited(child);
  });
  return { child, output: () => output };
}

interface Transition {
  server: string;
  status: 'UP' | 'DOWN';
  at: number;
}

/** Polls HAProxy's statistics and records when each server of `backend` enters and leaves the rotation. */
export function watchRotation(statsUrl: string, size: number, backend = 'instances') {
  const transitions: Transition[] = [];
  const current = new Map<string, string>();
  let stopped = false;
  const poll = async () => {
    while (!stopped) {
      const csv = await fetch(`${statsUrl};csv`).then((r) => r.text()).catch(() => '');
      const [header, ...rows] = csv.split('\n');
      const columns = header.replace(/^# /, '').split(',');
      const at = performance.now();
      for (const row of rows) {
        const cells = row.split(',');
        const server = cells[columns.indexOf('svname')];
        if (cells[columns.indexOf('pxname')] !== backend || server === 'BACKEND' || server === 'FRONTEND') continue;
        // "UP 1/2" is still in rotation, "DOWN 1/2" still out of it.
        const status = cells[columns.indexOf('status')].split(' ')[0];
        if ((status === 'UP' || status === 'DOWN') && current.get(server) !== status) transitions.push({ server, status, at });
        current.set(server, status);
      }
      await sleep(50);
    }
  };
  const polling = poll();
  return {
    /** When `server` entered `status` at or after `since`. */
    until: (server: string, status: Transition['status'], since: number, timeoutMs = 60_000) =>
      waitFor(() => transitions.find((t) => t.server === server && t.status === status && t.at >= since)?.at, `${server} to be ${status} in HAProxy`, timeoutMs, 20),
    allUp: () => [...current.values()].filter((s) => s === 'UP').length === size,
    stop: async () => {
      stopped = true;
      await polling;
    },
  };
}
