// GraphiQL (/v3/graphql in a browser) and the REST reference (/v2.2/docs) come
// entirely from this service: their HTML references no external URL, and they render
// in headless Chromium with every request outside 127.0.0.1 aborted. Screenshots go
// to test-artifacts/screenshots/.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openWatchedPage, screenshot } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Every URL the HTML makes the browser load: attributes, CSS imports and url(), module imports. */
function externalReferences(html: string): string[] {
  const patterns = [
    /\b(?:src|href|action|poster|srcset)\s*=\s*["']\s*((?:https?:)?\/\/[^"'\s]+)/gi,
    /@import\s+(?:url\()?\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /\bimport\s*(?:\(|[^'"]*from\s*)\s*["']((?:https?:)?\/\/[^"']+)/gi,
  ];
  const found = new Set(patterns.flatMap((pattern) => [...html.matchAll(pattern)].map((m) => m[1])));
  return [...found].filter((url) => !/^(https?:)?\/\/(127\.0\.0\.1|localhost)[:/]/.test(url));
}

async function html(path: string): Promise<string> {
  const response = await fetch(server.url + path, { headers: { accept: 'text/html' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/html');
  return response.text();
}

describe('pages that work offline', { timeout: 60_000 }, () => {
  it('the external-reference check finds CDN references', () => {
    expect(externalReferences('<script src="https://unpkg.com/graphiql/graphiql.min.js"></script><link href="//cdn.example.com/x.css">')).toHaveLength(2);
    expect(externalReferences('<style>@import url("https://fonts.googleapis.com/css")</style>')).toHaveLength(1);
    expect(externalReferences('<script src="/v2.2/docs/init.js"></script>')).toEqual([]);
  });

  it('GraphiQL: no external reference, renders offline, and shows where the Authorization header goes', async () => {
    const page = await html('/v3/graphql');
    expect(externalReferences(page)).toEqual([]);
    expect(page).toContain('Authorization');

    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/v3/graphql`, { waitUntil: 'load' });
    await watched.page.waitForSelector('.graphiql-container', { timeout: 20_000 });
    await watched.page.waitForFunction(() => document.body.innerText.includes('Authorization'), undefined, { timeout: 10_000 });
    await screenshot(watched.page, 'graphiql');
    expect(watched.external).toEqual([]);
    await watched.page.context().close();
  });

  it('/v2.2/docs: no external reference, renders the OpenAPI document offline', async () => {
    const page = await html('/v2.2/docs');
    expect(externalReferences(page)).toEqual([]);

    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/v2.2/docs`, { waitUntil: 'load' });
    await watched.page.waitForSelector('.swagger-ui .info .title', { timeout: 20_000 });
    await watched.page.waitForFunction(() => document.querySelectorAll('.opblock').length > 10, undefined, { timeout: 10_000 });
    expect(await watched.page.textContent('.swagger-ui .info .title')).toContain('REST interface');
    await screenshot(watched.page, 'v2.2-docs');
    expect(watched.external).toEqual([]);
    expect(watched.errors).toEqual([]);
    await watched.page.context().close();
  });
});
