// The PostgreSQL HA deployment the service supports, as settings and as processes: Patroni
// (Debian `patroni`) managing three PostgreSQL nodes with synchronous replication, etcd
// (Debian `etcd-server`) as its consensus store, and HAProxy routing write connections to the
// leader and read connections to the replicas by Patroni's REST checks (`/primary`,
// `/replica`). The service is given the two HAProxy ports as DATABASE_URL and
// DATABASE_REPLICA_URLS.
//
// The generators below write the settings both for the HA soak (every node on 127.0.0.1,
// short timings) and for the README (`npx tsx test/soak/patroni.ts`, prints a three-machine
// deployment to copy). The process helpers start, kill and restart the soak's nodes.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';
import { exited } from '../support/service.ts';

export interface PatroniNode {
  name: string;
  /** Where the node's PostgreSQL and REST API listen (and are reached). */
  host: string;
  postgresPort: number;
  restPort: number;
  dataDir: string;
}

export interface PatroniTiming {
  /** Seconds the leader key lives without renewal: how long a lost leader holds the cluster before a replica is promoted. */
  ttl: number;
  loopWait: number;
  retryTimeout: number;
}

/** Patroni's defaults, for machines on a network. */
export const PRODUCTION_TIMING: PatroniTiming = { ttl: 30, loopWait: 10, retryTimeout: 10 };

export interface ClusterSettings {
  scope: string;
  etcdHosts: string[];
  /** `/usr/lib/postgresql/<major>/bin`. */
  binDir: string;
  timing: PatroniTiming;
  /** `trust` on a private loopback (the soak), else scram-sha-256 with the passwords below. */
  authMethod: 'trust' | 'scram-sha-256';
  /** Address range the service, HAProxy and the other nodes connect from. */
  clientNetwork: string;
  passwords: { superuser: string; replication: string; rewind: string };
  /** The soak's nodes keep their sockets in their own directories. */
  socketDir?: (node: PatroniNode) => string;
  /** Connections each node accepts: every instance's pool on the leader and on a replica, plus Patroni's own. */
  maxConnections: number;
}

/** One node's Patroni settings (YAML). */
export function patroniConfig(node: PatroniNode, settings: ClusterSettings): string {
  const { timing } = settings;
  const config = {
    scope: settings.scope,
    name: node.name,
    restapi: { listen: `${node.host}:${node.restPort}`, connect_address: `${node.host}:${node.restPort}` },
    etcd3: { hosts: settings.etcdHosts },
    bootstrap: {
      // Written into etcd when the cluster is first made; every node then follows it.
      dcs: {
        ttl: timing.ttl,
        loop_wait: timing.loopWait,
        retry_timeout: timing.retryTimeout,
        maximum_lag_on_failover: 1_048_576,
        // A commit is acknowledged only once a standby has it (synchronous_commit below), and
        // Patroni promotes only that standby: an acknowledged commit survives the primary's loss.
        synchronous_mode: true,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: 'replica',
            hot_standby: 'on',
            hot_standby_feedback: 'on',
            wal_log_hints: 'on',
            max_wal_senders: 10,
            max_replication_slots: 10,
            wal_keep_size: '256MB',
            max_connections: settings.maxConnections,
            // Production durability: every commit flushed on the primary and on a synchronous standby.
            fsync: 'on',
            full_page_writes: 'on',
            synchronous_commit: 'on',
          },
        },
      },
      initdb: [{ encoding: 'UTF8' }, 'data-checksums'],
    },
    postgresql: {
      listen: `${node.host}:${node.postgresPort}`,
      connect_address: `${node.host}:${node.postgresPort}`,
      data_dir: node.dataDir,
      bin_dir: settings.binDir,
      pgpass: path.join(path.dirname(node.dataDir), 'pgpass'),
      authentication: {
        superuser: { username: 'postgres', password: settings.passwords.superuser },
        replication: { username: 'replicator', password: settings.passwords.replication },
        rewind: { username: 'rewind_user', password: settings.passwords.rewind },
      },
      pg_hba: [
        `local all all trust`,
        `host replication replicator ${settings.clientNetwork} ${settings.authMethod}`,
        `host all all ${settings.clientNetwork} ${settings.authMethod}`,
      ],
      ...(settings.socketDir ? { parameters: { unix_socket_directories: settings.socketDir(node) } } : {}),
    },
    tags: { nofailover: false, noloadbalance: false, clonefrom: false, nosync: false },
  };
  // YAML 1.1, as Patroni (PyYAML) reads it: "on" stays a string.
  return stringify(config, { version: '1.1' });
}

/**
 * HAProxy's part: the write port sends each connection to the node whose Patroni answers 200
 * on /primary, the read port spreads them over the nodes answering 200 on /replica. A node
 * that fails its check has its connections cut (on-marked-down shutdown-sessions), so the
 * service's pools make them again on the new leader instead of writing to a demoted one.
 */
export function haproxyDatabaseSections(nodes: PatroniNode[], ports: { bind: string; write: number; read: number }, check: { interMs: number }): string {
  const servers = nodes.map((node) => `  server ${node.name} ${node.host}:${node.postgresPort} maxconn 500 check port ${node.restPort}`).join('\n');
  const section = (name: string, port: number, path: string, balance: string) => `listen ${name}
  bind ${ports.bind}:${port}
  mode tcp
  balance ${balance}
  option httpchk OPTIONS ${path}
  http-check expect status 200
  default-server inter ${check.interMs}ms fall 2 rise 2 on-marked-down shutdown-sessions
${servers}
`;
  return `defaults
  mode tcp
  retries 2
  timeout connect 2s
  # Pooled connections sit idle between requests.
  timeout client 30m
  timeout server 30m
  timeout check 2s

${section('postgres_primary', ports.write, '/primary', 'first')}
${section('postgres_replicas', ports.read, '/replica', 'roundrobin')}`;
}

/** The settings of a three-node etcd cluster member, for the README (the soak runs one member). */
export function etcdFlags(member: { name: string; host: string }, members: { name: string; host: string }[]): string[] {
  return [
    `--name=${member.name}`,
    '--data-dir=/var/lib/etcd/default',
    `--listen-client-urls=http://${member.host}:2379,http://127.0.0.1:2379`,
    `--advertise-client-urls=http://${member.host}:2379`,
    `--listen-peer-urls=http://${member.host}:2380`,
    `--initial-advertise-peer-urls=http://${member.host}:2380`,
    `--initial-cluster=${members.map((m) => `${m.name}=http://${m.host}:2380`).join(',')}`,
    '--initial-cluster-state=new',
    '--initial-cluster-token=commerce-backoffice',
  ];
}

// ---------------------------------------------------------------- the soak's processes

export interface RunningNode extends PatroniNode {
  configFile: string;
  logFile: string;
  patroni?: ChildProcess;
}

export type MemberRole = 'leader' | 'sync_standby' | 'replica';

export interface Member {
  name: string;
  role: MemberRole | string;
  state: string;
  timeline?: number;
  lag?: number | string;
}

/** The cluster as any reachable node's Patroni sees it, or undefined when none answers. */
export async function clusterMembers(nodes: PatroniNode[]): Promise<Member[] | undefined> {
  for (const node of nodes) {
    try {
      const response = await fetch(`http://${node.host}:${node.restPort}/cluster`, { signal: AbortSignal.timeout(1_000) });
      if (response.ok) return ((await response.json()) as { members: Member[] }).members;
    } catch {
      // that node is down: ask the next
    }
  }
  return undefined;
}

/** Every node running, one of them leader and one a synchronous standby. */
export function healthy(members: Member[] | undefined, size: number): boolean {
  if (!members || members.length !== size) return false;
  const up = members.every((m) => m.state === 'running' || m.state === 'streaming');
  return up && members.filter((m) => m.role === 'leader').length === 1 && members.some((m) => m.role === 'sync_standby');
}

/** The server user's ids: postgres refuses to run as root. */
export function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const [, , uid, gid] = fs.readFileSync('/etc/passwd', 'utf8').split('\n').find((line) => line.startsWith('postgres:'))?.split(':') ?? [];
  if (uid === undefined) throw new Error('running as root, but there is no postgres user to run PostgreSQL as');
  return { uid: Number(uid), gid: Number(gid) };
}

/** Starts the node's Patroni (which starts its PostgreSQL), logging to its own file. */
export function startPatroni(node: RunningNode): void {
  const log = fs.openSync(node.logFile, 'a');
  node.patroni = spawn('patroni', [node.configFile], {
    cwd: path.dirname(node.configFile),
    env: { ...process.env, HOME: path.dirname(node.configFile) },
    stdio: ['ignore', log, log],
    ...serverUser(),
  });
  fs.closeSync(log);
}

function processesOf(parent: number): number[] {
  const children: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command may hold spaces and parentheses: the fields after it start at the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The postmaster's pid from its data directory, if it runs. */
function postmasterPid(node: PatroniNode): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(pid, 0);
    return pid;
  } catch {
    return undefined;
  }
}

/**
 * The machine's loss as far as the cluster can tell: SIGKILL to Patroni, its PostgreSQL and
 * every PostgreSQL process, at once, so no one shuts down cleanly or hands the leader key on.
 */
export async function killNode(node: RunningNode): Promise<void> {
  const postmaster = postmasterPid(node);
  const victims = [node.patroni?.pid, postmaster, ...(postmaster ? processesOf(postmaster) : [])].filter((pid): pid is number => pid !== undefined);
  for (const pid of victims) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  if (node.patroni) await exited(node.patroni);
  node.patroni = undefined;
}

/** Stops a node for good at the end of the soak (fast shutdown through Patroni, then whatever is left). */
export async function stopNode(node: RunningNode): Promise<void> {
  if (node.patroni && node.patroni.exitCode === null && node.patroni.signalCode === null) {
    node.patroni.kill('SIGTERM');
    const gone = await Promise.race([exited(node.patroni).then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 20_000))]);
    if (!gone) await killNode(node);
  }
  const postmaster = postmasterPid(node);
  if (postmaster) {
    process.kill(postmaster, 'SIGKILL');
    for (const pid of processesOf(postmaster)) process.kill(pid, 'SIGKILL');
  }
  node.patroni = undefined;
}

/** Starts one etcd member on loopback ports, its data in `dir`. */
export function startEtcd(dir: string, clientPort: number, peerPort: number): ChildProcess {
  const log = fs.openSync(path.join(dir, 'etcd.log'), 'a');
  const child = spawn(
    'etcd',
    [
      '--name=soak',
      `--data-dir=${path.join(dir, 'etcd')}`,
      `--listen-client-urls=http://127.0.0.1:${clientPort}`,
      `--advertise-client-urls=http://127.0.0.1:${clientPort}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=soak=http://127.0.0.1:${peerPort}`,
    ],
    { stdio: ['ignore', log, log] },
  );
  fs.closeSync(log);
  return child;
}

// ---------------------------------------------------------------- the README's deployment

/** The three-machine deployment of the README: each node's Patroni settings, etcd flags and HAProxy's part. */
export function productionDeployment(): string {
  const hosts = ['10.0.0.11', '10.0.0.12', '10.0.0.13'];
  const nodes: PatroniNode[] = hosts.map((host, i) => ({ name: `pg${i + 1}`, host, postgresPort: 5432, restPort: 8008, dataDir: '/var/lib/postgresql/15/patroni' }));
  const settings: ClusterSettings = {
    scope: 'commerce',
    etcdHosts: hosts.map((host) => `${host}:2379`),
    binDir: '/usr/lib/postgresql/15/bin',
    timing: PRODUCTION_TIMING,
    authMethod: 'scram-sha-256',
    clientNetwork: '10.0.0.0/24',
    passwords: { superuser: '<superuser password>', replication: '<replication password>', rewind: '<rewind password>' },
    maxConnections: 300,
  };
  const members = nodes.map(({ name, host }) => ({ name: `etcd${name.slice(2)}`, host }));
  return [
    `# /etc/patroni/config.yml on ${nodes[0].host} (${nodes[0].name}; the other nodes differ only in name and addresses)`,
    patroniConfig(nodes[0], settings),
    `# etcd on ${hosts[0]} (ETCD_* in /etc/default/etcd, or these flags)`,
    etcdFlags(members[0], members).join(' \\\n  '),
    '',
    '# /etc/haproxy/haproxy.cfg (the service: DATABASE_URL=postgresql://app@<haproxy>:5000/app, DATABASE_REPLICA_URLS=postgresql://app@<haproxy>:5001/app)',
    haproxyDatabaseSections(nodes, { bind: '0.0.0.0', write: 5000, read: 5001 }, { interMs: 1_000 }),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(productionDeployment());
