// The overview (/admin) in Chromium on the demo data, aged over the last month as a store in
// use would have it: signing in lands on it; each chart is an SVG image with a name and a
// table of its numbers with a caption; the numbers link to the searches listing their records
// (and those searches find what the number counts); the period form; screenshots at 1280 and
// 390 px with no axe-core violation and nothing scrolling sideways on a phone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { accessibilityViolations, launchBrowser, lookAtBothWidths, openWatchedPage, type WatchedPage } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { seedDemo, type DemoSeed } from '../../src/domain/demo.ts';

let server: TestServer;
let store: Extract<DemoSeed, { seeded: true }>;
let browser: Browser;
let merchant: WatchedPage;

/** Spreads the demo's returns over the last four weeks (their history and fees moved alike), completions a day or three after opening. */
async function ageDemoReturns(): Promise<void> {
  const sql = server.db.sql;
  await sql.query(`CREATE TEMP TABLE shift AS SELECT "id", (("number" * 7) % 27) * interval '1 day' + ("number" % 9) * interval '1 hour' AS back FROM "Return"`);
  await sql.query(`UPDATE "Return" AS r SET "createdAt" = r."createdAt" - s.back FROM shift AS s WHERE s."id" = r."id"`);
  await sql.query(`UPDATE "InvoiceItem" AS i SET "occurredAt" = i."occurredAt" - s.back FROM shift AS s WHERE s."id" = i."subjectId"`);
  await sql.query(
    `UPDATE "ReturnStatusChange" AS c SET "createdAt" = LEAST(now() AT TIME ZONE 'UTC', c."createdAt" - s.back
       + CASE WHEN c."operation" = 'create' THEN interval '0' ELSE (1 + length(c."returnId") % 3 + ascii(right(c."returnId", 1)) % 3) * interval '1 day' END)
     FROM shift AS s WHERE s."id" = c."returnId"`,
  );
  await sql.query(`DROP TABLE shift`);
}

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const seeded = await seedDemo(server.db.prisma);
  if (!seeded.seeded) throw new Error('the test database already had the demo data');
  store = seeded;
  await ageDemoReturns();
  merchant = await openWatchedPage(browser);
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.click(selector)]);
}

const lookAt = (page: Page, name: string) => lookAtBothWidths(page, name);

/** How many returns the returns list at `href` finds: its "All but deleted" tab's count. */
async function listedAt(href: string): Promise<number> {
  const list = await merchant.page.context().newPage();
  await list.goto(`${server.url}${href}`);
  const count = Number(await list.textContent('[data-status-tab="ALL"] .count'));
  await list.close();
  return count;
}

describe('the overview in Chromium', { timeout: 240_000 }, () => {
  it('is where signing in lands, with the Overview link first in the navigation', async () => {
    const { page } = merchant;
    await page.goto(`${server.url}/admin/login?store=${store.storeId}`);
    await page.fill('#login-email', store.login.email);
    await page.fill('#login-password', store.login.password);
    await submit(page, 'form[action="/admin/login"] button');
    expect(new URL(page.url()).pathname).toBe('/admin');
    expect(await page.textContent('h1')).toBe('Overview');
    expect(await page.$$eval('nav[aria-label="Dashboard"] a', (links) => links.map((a) => a.textContent)[0])).toBe('Overview');
  });

  it('draws each chart as a named SVG image beside a captioned table of its numbers, and shows no error', async () => {
    const { page, errors, external } = merchant;
    await page.goto(`${server.url}/admin`);
    const charts = await page.$$eval('svg.chart', (svgs) => svgs.map((svg) => ({ role: svg.getAttribute('role'), title: svg.querySelector('title')?.textContent ?? '', bars: svg.querySelectorAll('rect').length })));
    expect(charts.length).toBeGreaterThanOrEqual(6);
    for (const chart of charts) {
      expect(chart.role).toBe('img');
      expect(chart.title).not.toBe('');
      expect(chart.bars, chart.title).toBeGreaterThan(0);
    }
    const captions = await page.$$eval('table caption', (cs) => cs.map((c) => c.textContent));
    expect(captions).toEqual(
      expect.arrayContaining(['Needing action by status', 'Needing action by days since opened', 'Returns opened and completed per day', 'SKUs with the highest return rate', 'Reasons ranked by units returned']),
    );
    // Nothing inline that the CSP would block, and nothing it did block.
    expect(await page.$$('[style], style, script:not([src])')).toEqual([]);
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    await lookAt(page, 'overview');
  });

  it('links each number to the search listing exactly the records it counts', async () => {
    const { page } = merchant;
    await page.goto(`${server.url}/admin`);
    const links = await page.$$eval('section.figure table a', (as) => as.map((a) => ({ href: a.getAttribute('href')!, text: a.textContent!.trim() })));
    const returnCounts = links.filter((l) => l.href.startsWith('/admin/returns?q=') && /^\d+$/.test(l.text) && !/reason:|sku:/.test(decodeURIComponent(l.href)));
    expect(returnCounts.length).toBeGreaterThan(10);
    // Status and age counts, the period's opened and completed: each search lists as many returns as the number says.
    const checked = returnCounts.filter((l) => Number(l.text) > 0 && !/created_at:\d{4}-\d{2}-\d{2}$|closed_at:\d{4}-\d{2}-\d{2}$/.test(new URL(l.href, server.url).searchParams.get('q')!));
    expect(checked.length).toBeGreaterThan(3);
    for (const l of checked) expect(await listedAt(l.href), `${l.text} at ${decodeURIComponent(l.href)}`).toBe(Number(l.text));
    // A reason's returns.
    const reason = links.find((l) => decodeURIComponent(l.href).includes('reason:') && l.href.includes('returns'));
    expect(reason).toBeDefined();
    const reasonRow = await page.$$eval('#reasons ~ div table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
    const [, , returns] = reasonRow[0];
    expect(await listedAt((await page.$eval('#reasons ~ div table tbody tr td:nth-child(3) a', (a) => a.getAttribute('href')))!)).toBe(Number(returns));
  });

  it('shows the period asked for and refuses a period that ends before it starts', async () => {
    const { page } = merchant;
    await page.goto(`${server.url}/admin`);
    await page.selectOption('#period', '7');
    await submit(page, 'form.period button');
    expect(await page.$$eval('#per-day ~ details table tbody tr', (trs) => trs.length)).toBe(7);
    await page.selectOption('#period', 'custom');
    await page.fill('#from', '2026-11-10');
    await page.fill('#to', '2026-11-01');
    await submit(page, 'form.period button');
    expect(await page.textContent('#period-error')).toBe('The last day of the period comes before its first day.');
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
