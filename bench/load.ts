// Load from outside the server: every measured request is made by autocannon running in a
// child process of its own, so the client's work never shares the server's event loop (a
// load generator in the server's process slows the cheap variants most and pulls every
// ratio towards 1). Variants are measured in interleaved rounds, so a change of machine
// load during a run weighs on all of them alike. Optionally the server's process is
// profiled (node:inspector) while one variant is under load.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./loadWorker.mjs', import.meta.url));

export interface LoadRequest {
  url: string;
  method?: string;
  /** `{{unique}}` in a value is replaced as in `bodies`, by the same value as the body's. */
  headers?: Record<string, string>;
  /** Sent in turn, request after request (one body is sent every time); `{{unique}}` in one is replaced by a value of its own each time. */
  bodies?: string[];
  /** The status every answer must have (a 304 of a conditional request); by default any 2xx. */
  status?: number;
  /**
   * Other paths of the same server with their own headers (other stores and their secrets), each
   * request sent to the next in turn, as if `url` and `headers` were the first of them.
   */
  spread?: { path: string; headers: Record<string, string> }[];
}

interface Slice {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  /** Answers of another status than the request expects (by default, not 2xx). */
  unexpected: number;
  statuses: Record<string, number>;
  errors: number;
}

/**
 * Runs a client script in a process of its own, so its work never shares the event loop of the
 * service it measures: `options` go to it as JSON on its stdin, its JSON answer comes from its stdout.
 */
export function runClientProcess<T>(script: string, options: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`the client process ${path.basename(script)} exited ${code}: ${err.slice(0, 500)}`));
      resolve(JSON.parse(out) as T);
    });
    child.stdin.end(JSON.stringify(options));
  });
}

/** One run of autocannon against `request`: `connections` in flight for `seconds`. */
async function autocannon(request: LoadRequest, connections: number, seconds: number): Promise<Slice> {
  const options = { url: request.url, method: request.method ?? 'GET', headers: request.headers ?? {}, bodies: request.bodies ?? [], spread: request.spread ?? [], connections, duration: seconds };
  const result = await runClientProcess<{
    requests: { total: number };
    duration: number;
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
    statusCodeStats: Record<string, { count: number }>;
  }>(WORKER, options);
  const otherStatuses = Object.entries(result.statusCodeStats)
    .filter(([status]) => Number(status) !== request.status)
    .reduce((sum, [, { count }]) => sum + count, 0);
  return {
    requests: result.requests.total,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected: request.status === undefined ? result.non2xx : otherStatuses,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count])),
    errors: result.errors + result.timeouts,
  };
}

export interface Variant {
  name: string;
  request: LoadRequest;
  /** CPU milliseconds used so far by the process that serves the variant (cpuMsOf a child's pid); this process's by default. */
  cpuMs?: () => number;
  /** CPU milliseconds its database's server has used so far for it (databaseCpuMeter), when measured. */
  databaseCpuMs?: () => number;
}

const ownCpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * A meter of the CPU milliseconds the local PostgreSQL server's backends connected to `database`
 * have used since the meter was made, found in /proc by their process title ("postgres: ... <user>
 * <database> <client> <state>"), so that other databases' work on the same server is left out.
 * A backend that exits between two readings loses its last slice; the shared processes (WAL
 * writer, checkpointer) are not counted. NaN where there is no /proc.
 */
export function databaseCpuMeter(database: string): () => number {
  const seen = new Map<number, number>();
  let total = 0;
  let first = true;
  const read = () => {
    let pids: string[];
    try {
      pids = fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
    } catch {
      return Number.NaN;
    }
    for (const entry of pids) {
      let title: string;
      try {
        title = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      } catch {
        continue;
      }
      if (!title.startsWith('postgres: ') || !title.split(' ').includes(database)) continue;
      const pid = Number(entry);
      const now = cpuMsOf(pid);
      if (Number.isNaN(now)) continue;
      // A backend first seen after the meter was made was born since: all of its time counts.
      total += now - (seen.get(pid) ?? (first ? now : 0));
      seen.set(pid, now);
    }
    first = false;
    return total;
  };
  read();
  return read;
}

/** CPU milliseconds a process has used (user + system, from /proc; clock ticks of 10 ms), NaN where there is no /proc. */
export function cpuMsOf(pid: number | undefined): number {
  try {
    // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

export interface Measured {
  name: string;
  requests: number;
  rps: number;
  /** Median over the rounds of each round's median latency (ms). */
  p50: number;
  p99: number;
  /**
   * CPU time of the serving process per request (ms, user and system, every thread: zlib's
   * pool too), over the measured slices: this process's unless the variant names another
   * (Variant.cpuMs); never its database's (PostgreSQL). The load generator runs in a process of its own.
   */
  cpuMsPerRequest: number;
  /** CPU time per request of the database server's backends serving it (Variant.databaseCpuMs), when measured. */
  databaseCpuMsPerRequest?: number;
}

export interface LoadOptions {
  connections: number;
  /** Seconds of load per variant, split over the rounds. */
  seconds: number;
  rounds: number;
  warmupSeconds: number;
  /** Variants whose load is profiled (node:inspector on this process), written under `profileDir`. */
  profile?: { variants: readonly string[]; dir: string; label: string };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Every variant warmed up, then measured in `rounds` interleaved slices. A non-2xx answer or an error fails the run. */
export async function measureLoad(variants: readonly Variant[], options: LoadOptions): Promise<Measured[]> {
  for (const variant of variants) await checked(variant, await autocannon(variant.request, options.connections, options.warmupSeconds));
  const slices = new Map<string, Slice[]>(variants.map((v) => [v.name, []]));
  const cpuMs = new Map<string, number>(variants.map((v) => [v.name, 0]));
  const databaseCpuMs = new Map<string, number>();
  const profiled = new Set(options.profile?.variants ?? []);
  for (let round = 0; round < options.rounds; round++) {
    for (const variant of variants) {
      const profile = round === 0 && profiled.has(variant.name) ? await startProfile() : undefined;
      const cpuOf = variant.cpuMs ?? ownCpuMs;
      const cpuBefore = cpuOf();
      const databaseCpuBefore = variant.databaseCpuMs?.() ?? 0;
      const slice = await autocannon(variant.request, options.connections, options.seconds / options.rounds);
      cpuMs.set(variant.name, cpuMs.get(variant.name)! + cpuOf() - cpuBefore);
      if (variant.databaseCpuMs) databaseCpuMs.set(variant.name, (databaseCpuMs.get(variant.name) ?? 0) + variant.databaseCpuMs() - databaseCpuBefore);
      if (profile && options.profile) await profile.stop(path.join(options.profile.dir, `${options.profile.label}-${variant.name}.cpuprofile`));
      slices.get(variant.name)!.push(await checked(variant, slice));
    }
  }
  return variants.map(({ name }) => {
    const runs = slices.get(name)!;
    const requests = runs.reduce((sum, s) => sum + s.requests, 0);
    const seconds = runs.reduce((sum, s) => sum + s.seconds, 0);
    const cpuMsPerRequest = cpuMs.get(name)! / requests;
    const databaseCpu = databaseCpuMs.get(name);
    return {
      name,
      requests,
      rps: requests / seconds,
      p50: median(runs.map((s) => s.p50)),
      p99: median(runs.map((s) => s.p99)),
      cpuMsPerRequest,
      ...(databaseCpu === undefined ? {} : { databaseCpuMsPerRequest: databaseCpu / requests }),
    };
  });
}

async function checked(variant: Variant, slice: Slice): Promise<Slice> {
  if (slice.unexpected > 0 || slice.errors > 0) {
    const response = await fetch(variant.request.url, { method: variant.request.method, headers: variant.request.headers, body: variant.request.bodies?.[0] });
    const expected = variant.request.status ?? '2xx';
    throw new Error(
      `${variant.name}: ${slice.unexpected} answers other than ${expected} (${JSON.stringify(slice.statuses)}) and ${slice.errors} errors under load; one answer now: ${response.status} ${(await response.text()).slice(0, 300)}`,
    );
  }
  return slice;
}

/** A CPU profile of this process from now until `stop(file)`, which writes it and prints its summary. */
export async function startProfile() {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(file: string) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      process.stdout.write(`  profile of this process under that load: ${file}\n${summariseProfile(profile as CpuProfile)}`);
    },
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time by package (or our source folder), the largest first. */
export function summariseProfile(profile: CpuProfile, top = 12): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const delta = profile.timeDeltas[i] ?? 0;
    total += delta;
    const dependency = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)?.[1];
    const own = url.includes('/src/') ? `src/${url.split('/src/')[1].split('/')[0]}` : undefined;
    const key = functionName === '(garbage collector)' ? 'GC' : functionName === '(idle)' ? 'idle' : (dependency ?? own ?? (url || `(native) ${functionName}`));
    totals.set(key, (totals.get(key) ?? 0) + delta);
  });
  return (
    [...totals]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, time]) => `    ${((100 * time) / total).toFixed(1).padStart(5)}%  ${key}`)
      .join('\n') + '\n'
  );
}
