// The peer the returns page is compared with: PostGraphile 4.14.1, a GraphQL server on
// graphql-js that reads the same tables of the same database (`postgraphile -c URL -s
// public`, production mode), asked for the same data the REST page selects. It is not a
// dependency of the project: the bench installs it once under node_modules/.cache and
// runs it in a process of its own.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const VERSION = '4.14.1';
const HOME = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', '.cache', 'bench-peers', `postgraphile-${VERSION}`);
const CLI = path.join(HOME, 'node_modules', 'postgraphile', 'cli.js');

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

function installed(): boolean {
  return fs.existsSync(CLI);
}

function install(): void {
  fs.mkdirSync(HOME, { recursive: true });
  fs.writeFileSync(path.join(HOME, 'package.json'), JSON.stringify({ name: 'bench-peer', private: true }));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', `postgraphile@${VERSION}`], { cwd: HOME, stdio: 'ignore' });
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
  close(): Promise<void>;
}

/** PostGraphile on `databaseUrl`, or undefined (with the reason printed) when it cannot be installed or started. */
export async function startPostGraphile(databaseUrl: string): Promise<Peer | undefined> {
  try {
    if (!installed()) install();
  } catch (error) {
    process.stdout.write(`PostGraphile ${VERSION} could not be installed (${(error as Error).message.split('\n')[0]}); no peer\n`);
    return undefined;
  }
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [CLI, '-c', databaseUrl, '-s', 'public', '--host', '127.0.0.1', '--port', String(port), '--disable-query-log'], {
    env: { ...process.env, NODE_ENV: 'production' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}/graphql`;
  const close = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) break;
    const ready = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{__typename}"}' })
      .then((r) => r.ok)
      .catch(() => false);
    if (ready) return { name: `PostGraphile ${VERSION}`, url, close };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await close();
  process.stdout.write(`PostGraphile ${VERSION} did not start; no peer\n`);
  return undefined;
}
