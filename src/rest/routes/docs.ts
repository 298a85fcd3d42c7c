// GET /v2.2/docs: an HTML reference of /v2.2/openapi.json rendered by Swagger UI,
// whose script and styles come from the swagger-ui-dist package and are served here
// (/v2.2/docs/{asset}), so the page works without internet access. Swagger UI's
// online validator is switched off for the same reason. Served without credentials.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { Route } from '../../http/routeTable.ts';
import { problem } from '../problem.ts';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'init.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

// A separate script rather than an inline one, so a Content-Security-Policy of 'self' can serve the page.
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v2.2/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    persistAuthorization: false,
  });
});
`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>REST v2.2 reference</title>
  <link rel="icon" type="image/png" href="/v2.2/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/v2.2/docs/swagger-ui.css">
</head>
<body>
  <p style="font-family: sans-serif; margin: 1em 2em">Authenticate with <b>Authorize</b>: the API secret of an API client
  (<code>npm run -s cli -- api-client create ...</code>), sent as <code>Authorization: Bearer &lt;secret&gt;</code>.</p>
  <div id="swagger-ui"></div>
  <script src="/v2.2/docs/swagger-ui-bundle.js"></script>
  <script src="/v2.2/docs/init.js"></script>
</body>
</html>
`;

const distDir = () => path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const cache = new Map<string, Buffer>();

function asset(name: string): Buffer {
  let body = cache.get(name);
  if (!body) {
    body = name === 'init.js' ? Buffer.from(INIT_SCRIPT) : fs.readFileSync(path.join(distDir(), name));
    cache.set(name, body);
  }
  return body;
}

export const docsRoutes: Route[] = [
  {
    method: 'GET',
    path: '/docs',
    scopes: [],
    public: true,
    doc: {
      summary: 'HTML reference of this interface',
      tag: 'Merchant Admin',
      description: 'Swagger UI rendering of /v2.2/openapi.json, served entirely by this service. No credentials needed.',
      responses: { '200': { description: 'An HTML page', mediaType: 'text/html', schema: { type: 'string' } } },
    },
    async handle() {
      return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: PAGE };
    },
  },
  {
    method: 'GET',
    path: '/docs/{asset}',
    scopes: [],
    public: true,
    doc: {
      summary: 'Script, style or icon of the HTML reference',
      tag: 'Merchant Admin',
      responses: { '200': { description: 'The file (CSS, JavaScript or PNG)', mediaType: 'application/octet-stream', schema: { type: 'string' } }, '404': { description: 'No such file', problem: true } },
    },
    async handle({ params, instance }) {
      const type = ASSETS[params.asset];
      if (!type) return problem(404, `no documentation asset named ${params.asset}`, { instance });
      return { status: 200, headers: { 'content-type': type, 'cache-control': 'public, max-age=3600' }, body: asset(params.asset) };
    },
  },
];
