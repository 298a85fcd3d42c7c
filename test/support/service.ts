// The real service (`src/main.ts`, or its build) in a child process, for tests and scripts that kill
// it with SIGKILL and start it again on the same database.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Service {
  child: ChildProcess;
  /** Base URL, e.g. http://127.0.0.1:43117. */
  url: string;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
}

/** How the service runs: its TypeScript through the tsx loader, or the compiled dist/ that `npm start` runs (built first when stale). */
export type ServiceCode = 'source' | 'build';

const ENTRY: Record<ServiceCode, string[]> = { source: ['--import', 'tsx', 'src/main.ts'], build: ['tools/build/start.mjs'] };

/**
 * The young generation's size this process was given (`npm start` gives the service one, and
 * `npm run bench` the bench's process the same), for the servers it starts: a service, a peer or
 * a floor measured in a process of its own then runs with the heap it runs with in production.
 */
export const heapFlags = process.execArgv.filter((flag) => flag.startsWith('--max-semi-space-size'));

/** Starts the service on `databaseUrl` on an ephemeral port and resolves once it listens; `nodeArgs` go to node (e.g. --cpu-prof). */
export function startService(databaseUrl: string, env: NodeJS.ProcessEnv = {}, code: ServiceCode = 'source', nodeArgs: string[] = []): Promise<Service> {
  const child = spawn(process.execPath, [...heapFlags, ...nodeArgs, ...ENTRY[code]], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: '0',
      SEED_WHEN_EMPTY: 'false',
      WEBHOOKS_ALLOW_LOOPBACK: 'true',
      LOG_LEVEL: 'error',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /Service listening on (http:\/\/\S+)/.exec(output);
      if (listening) resolve({ child, url: listening[1], output: () => output });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => reject(new Error(`service exited (${code ?? signal}) before listening:\n${output}`)));
  });
}

/** Resolves when the child has exited (and was reaped). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/** Resident memory of a process in MB (VmRSS); undefined once it has exited, as its status then has none. */
export function residentMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) / 1024;
  } catch {
    return undefined;
  }
}
