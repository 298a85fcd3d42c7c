import { configDefaults, defineConfig } from 'vitest/config';

// The PostgreSQL pass (TEST_DATABASE_URL set) leaves out the browser tests: they test pages as
// Chromium draws them, and the same pages' data is tested without a browser on both databases.
const BROWSER_TESTS = ['test/web/*Browser.test.ts', 'test/web/browser.test.ts'];

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (main) and ESM (module) builds. Node loads the CJS one for our
    // dependencies; vite would pick the ESM one for our code, and graphql refuses to mix them.
    alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }],
  },
  test: {
    include: ['test/**/*.test.ts'],
    exclude: process.env.TEST_DATABASE_URL ? [...configDefaults.exclude, ...BROWSER_TESTS] : configDefaults.exclude,
    globalSetup: ['test/support/globalSetup.ts'],
    // Each file gets its own database; two workers fit the 2-core machines this runs on.
    pool: 'forks',
    maxWorkers: 2,
    // A worker keeps the modules it imported for its next file instead of importing the whole
    // service again (schema, Prisma client: ~3.5 s of CPU per file, 380 s a pass). Files share
    // no state through modules: each opens its own database and server, and none mocks modules,
    // stubs globals or env, or fakes timers (vi.mock etc. would leak into later files here).
    isolate: false,
    fileParallelism: true,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
