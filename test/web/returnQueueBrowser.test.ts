// The returns queue, its bulk action and the orders and customers lists in Chromium, on the demo
// data, at desktop and phone width: no axe violation, no sideways scrolling on a phone, and a
// bulk action chosen with the checkboxes ends on its summary. Screenshots go to test-artifacts/screenshots/.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, type DemoSeed } from '../../src/domain/demo.ts';
import { accessibilityViolations, launchBrowser, openWatchedPage, screenshot } from '../support/browser.ts';
import { actOnBulkActions, startTestServer, type TestServer } from '../support/server.ts';

let server: TestServer;
let browser: Browser;
let store: Extract<DemoSeed, { seeded: true }>;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  actOnBulkActions(server);
  const seeded = await seedDemo(server.db.prisma);
  if (!seeded.seeded) throw new Error('the test database already had the demo data');
  store = seeded;
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(`${server.url}/admin/login?store=${store.storeId}`);
  await page.fill('#login-store', store.storeId);
  await page.fill('#login-email', store.login.email);
  await page.fill('#login-password', store.login.password);
  await page.click('form[action="/admin/login"] button');
  await page.waitForLoadState();
}

async function checkPage(page: Page, width: number, name: string): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  await screenshot(page, `queue-${name}-${width}`, { fullPage: true });
  await screenshot(page, `queue-${name}-${width}-first-screen`);
}

describe('the merchant lists in Chromium', { timeout: 240_000 }, () => {
  for (const width of [1280, 390]) {
    it(`the returns queue, orders and customers at ${width} px`, async () => {
      const { page, errors, external } = await openWatchedPage(browser, { width, height: width === 390 ? 844 : 900 });
      await signIn(page);
      await page.goto(`${server.url}/admin/returns`);
      const tabs = await page.$$eval('[data-status-tab]', (links) => links.map((a) => a.getAttribute('data-status-tab')));
      expect(tabs).toEqual(['ALL', 'OPEN', 'FLAGGED', 'COMPLETE', 'REJECTED', 'DELETED']);
      await checkPage(page, width, 'returns');
      await page.selectOption('#sort', 'age-desc');
      await page.click('form[action="/admin/returns"] button[type=submit]');
      await page.waitForLoadState();
      const ages = await page.$$eval('#returns-list td[data-label="Age"] time', (times) => times.map((t) => t.getAttribute('datetime')!));
      expect(ages.length).toBeGreaterThan(1);
      expect([...ages].sort()).toEqual(ages);
      await page.goto(`${server.url}/admin/orders`);
      await checkPage(page, width, 'orders');
      await page.goto(`${server.url}/admin/customers`);
      await checkPage(page, width, 'customers');
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
    });
  }

  it('flags the returns chosen with their checkboxes and shows the summary, at both widths', async () => {
    const { page, errors, external } = await openWatchedPage(browser, { width: 1280, height: 900 });
    await signIn(page);
    await page.goto(`${server.url}/admin/returns?status=OPEN`);
    const boxes = await page.$$('#returns-list input[type=checkbox]');
    expect(boxes.length).toBeGreaterThan(1);
    await boxes[0].check();
    await boxes[1].check();
    // The actions stay folded under one line until asked for, so the rows start on the first screen.
    await page.click('#bulk-action summary');
    await page.selectOption('#bulk-what', 'FLAG');
    await page.click('#bulk-action button[type=submit]');
    await page.waitForLoadState();
    expect(new URL(page.url()).pathname).toMatch(/^\/admin\/returns\/bulk\//);
    await page.waitForSelector('#bulk-summary');
    expect(await page.textContent('#bulk-summary')).toBe('2 flagged, 0 refused.');
    await checkPage(page, 1280, 'bulk-summary');
    const phone = await openWatchedPage(browser, { width: 390, height: 844 });
    await signIn(phone.page);
    await phone.page.goto(page.url());
    await checkPage(phone.page, 390, 'bulk-summary');

    // Processing the complete tab refuses each, naming it by number.
    await page.goto(`${server.url}/admin/returns?status=COMPLETE`);
    const complete = await page.$$('#returns-list input[type=checkbox]');
    await complete[0].check();
    await page.click('#bulk-action summary');
    await page.selectOption('#bulk-what', 'PROCESS');
    await page.click('#bulk-action button[type=submit]');
    await page.waitForSelector('#bulk-summary');
    expect(await page.textContent('#bulk-summary')).toMatch(/^0 processed, 1 refused: return #\d+ is complete: process is not allowed in that status\.$/);
    await checkPage(page, 1280, 'bulk-refused');
    expect([...errors, ...phone.errors]).toEqual([]);
    expect([...external, ...phone.external]).toEqual([]);
  });
});
