import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';

// Prisma's native schema engine cannot be downloaded here; the CLI runs our
// WebAssembly-backed stand-in instead. `??=` lets a machine that has the native
// engine point the variable at it.
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(new URL('./tools/prisma-engine/schema-engine.mjs', import.meta.url));

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'pglite:./data/pglite',
    shadowDatabaseUrl: process.env.SHADOW_DATABASE_URL,
  },
});
