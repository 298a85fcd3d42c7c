// npm run reference:vendor — copies the published reference document of the v2.2
// interface (devDependency @redotech/redo-api-schema, lib/openapi.yaml) to
// src/rest/reference.v2.2.json, which the served OpenAPI document is built from: the
// runtime has no devDependencies. test/rest/openapi.test.ts checks the copy still equals
// the package's document, so bumping the package without re-vendoring fails.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';

const require = createRequire(import.meta.url);
const source = require.resolve('@redotech/redo-api-schema/openapi.yaml');
const target = new URL('../src/rest/reference.v2.2.json', import.meta.url);
const document = parseYaml(fs.readFileSync(source, 'utf8')) as unknown;
fs.writeFileSync(target, `${JSON.stringify(document, null, 1)}\n`);
process.stdout.write(`wrote ${target.pathname} from ${source}\n`);
