// The PostGraphile 5 peer's own process (bench/peer.ts starts it, on the Node 22 binary the
// peer cache holds: PostGraphile 5 needs Node 22 and the service runs on the machine's Node).
// PostGraphile over every table of `public` with the v4 preset, so the schema names the
// returns page as PostGraphile 4 does and one query document serves both peers.
// Arguments: the peer's install directory, the database URL, the port.
import { createRequire } from 'node:module';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [home, connectionString, port] = process.argv.slice(2);
const require = createRequire(path.join(home, 'package.json'));
const load = (specifier) => import(pathToFileURL(require.resolve(specifier)).href);

const { postgraphile } = await load('postgraphile');
const { grafserv } = await load('postgraphile/grafserv/node');
const { makeV4Preset } = await load('postgraphile/presets/v4');
const { PostGraphileAmberPreset } = await load('postgraphile/presets/amber');
const { makePgService } = await load('postgraphile/adaptors/pg');

const preset = {
  extends: [PostGraphileAmberPreset, makeV4Preset({ graphiql: false, disableDefaultMutations: true })],
  pgServices: [makePgService({ connectionString, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: { explain: false },
};

const pgl = postgraphile(preset);
const serv = pgl.createServ(grafserv);
const server = http.createServer();
server.keepAliveTimeout = 120_000;
serv.addTo(server);
server.listen(Number(port), '127.0.0.1');
const stop = () => server.close(() => void pgl.release().finally(() => process.exit(0)));
process.once('SIGTERM', stop);
