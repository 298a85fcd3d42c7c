// Export from a dashboard list in Chromium: the orders list with its Export links passes axe at
// desktop and phone width (no sideways scrolling on a phone), and clicking Export downloads a
// file, named by the list and the day, that holds the rows of the search on the page, in the
// list's order, across several export pages (200 records each). Screenshots go to
// test-artifacts/screenshots/.
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, launchBrowser, openWatchedPage, screenshot } from '../support/browser.ts';
import { insertBulkReturns } from '../support/bulkReturns.ts';
import { createTestStore, graphql, startTestServer, type TestServer, type TestStore } from '../support/server.ts';
import { createUser, PASSWORD } from './helpers.ts';

let server: TestServer;
let browser: Browser;
let store: TestStore;

const RETURNS = 230;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  store = await createTestStore(server.db, { name: 'Download Outfitters' });
  const other = await createTestStore(server.db, { name: 'Neighbour' });
  const from = new Date('2026-11-02T09:00:00Z');
  await insertBulkReturns(server.db.sql, store.storeId, { count: RETURNS, items: 1, from, stepMs: 60_000, distinctTimes: 5, statuses: ['open', 'flagged', 'complete'], batch: 'dl' });
  await insertBulkReturns(server.db.sql, other.storeId, { count: 20, items: 1, from, stepMs: 60_000, batch: 'nb' });
  await createUser(server, store.storeId);
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/admin/login?store=${store.storeId}`);
  await page.fill('#login-store', store.storeId);
  await page.fill('#login-email', 'owner@example.com');
  await page.fill('#login-password', PASSWORD);
  await page.click('form[action="/admin/login"] button');
  await page.waitForLoadState();
}

/** The ids the v3 orders list answers for `query`, page after page. */
async function orderIds(query: string | null): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  do {
    const res = await graphql(server, store.secret, `query($after: String, $query: String) {
      orders(first: 100, after: $after, query: $query) { nodes { id } pageInfo { hasNextPage endCursor } } }`, { query, after });
    const connection = res.data!.orders as { nodes: { id: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    ids.push(...connection.nodes.map((n) => n.id));
    after = connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null;
  } while (after);
  return ids;
}

/** Clicks the link and reads the file it downloads. */
async function download(page: Page, link: string): Promise<{ name: string; text: string }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.click(link)]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: fs.readFileSync(path, 'utf8') };
}

const column = (text: string, name: string) => {
  const [header, ...rows] = parse(text) as string[][];
  return rows.map((row) => row[header.indexOf(name)]);
};

describe('exporting a list from the dashboard', { timeout: 180_000 }, () => {
  it('the orders list at desktop and phone width: JSON Lines of every order, over several export pages', async () => {
    for (const width of [1280, 390]) {
      const { page, errors, external } = await openWatchedPage(browser, { width, height: width === 390 ? 844 : 900 });
      await signIn(page);
      await page.goto(`${server.url}/admin/orders`);
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await screenshot(page, `exports-orders-${width}`, { fullPage: true });
      await screenshot(page, `exports-orders-${width}-first-screen`);
      const jsonl = await download(page, 'a:text("Export JSON Lines")');
      expect(jsonl.name).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.jsonl$/);
      const ids = jsonl.text.trimEnd().split('\n').map((line) => (JSON.parse(line) as { order_id: string }).order_id);
      expect(ids).toHaveLength(RETURNS);
      expect(ids).toEqual(await orderIds(null));
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
    }
  });

  it('a search: Export CSV downloads the rows the search finds, the search kept in the link', async () => {
    const { page, errors, external } = await openWatchedPage(browser, { width: 1280, height: 900 });
    await signIn(page);
    await page.goto(`${server.url}/admin/orders`);
    await page.fill('#search-q', 'shopper1 OR shopper2');
    await page.click('form[action="/admin/orders"] button');
    await page.waitForLoadState();
    expect(await accessibilityViolations(page)).toEqual([]);
    const csv = await download(page, 'a:text("Export CSV")');
    expect(csv.name).toMatch(/^orders-\d{4}-\d{2}-\d{2}\.csv$/);
    const expected = await orderIds('shopper1 OR shopper2');
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.length).toBeLessThan(RETURNS);
    expect(column(csv.text, 'Order ID')).toEqual(expected);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
  });
});
