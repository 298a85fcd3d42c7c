// Headless Chromium for tests that must see a page render: Debian's `chromium` package
// (CHROMIUM_PATH overrides), driven by playwright-core, which downloads no browser.
// Every request the page makes is recorded; requests leaving 127.0.0.1 are aborted, so
// a page that needs the internet shows it both in `external` and in what renders.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Screenshots for a reviewer (test-artifacts/ is ignored by git). */
export const SCREENSHOT_DIR = path.resolve('test-artifacts/screenshots');

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];
  const found = candidates.find((candidate) => fs.existsSync(candidate));
  if (!found) throw new Error(`no Chromium found (looked at ${candidates.join(', ')}); install Debian's chromium package or set CHROMIUM_PATH`);
  return found;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

export interface WatchedPage {
  page: Page;
  /** URLs the page asked for outside 127.0.0.1 / localhost (all aborted). */
  external: string[];
  /** Uncaught page errors, console errors (a CSP violation is one) and failed sub-resources. */
  errors: string[];
}

/** A page in a context of its own (its own cookie jar), watched for what it loads and what fails. */
export async function openWatchedPage(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const external: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    const local = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.protocol === 'data:' || url.protocol === 'blob:';
    if (local) return route.continue();
    external.push(url.href);
    return route.abort();
  });
  page.on('pageerror', (error) => errors.push(error.message));
  // A failed load is reported below with its path; the console's copy of it says less.
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) errors.push(message.text());
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400 && response.request().resourceType() !== 'document' && url.pathname !== '/favicon.ico') errors.push(`${response.status()} ${url.pathname}`);
  });
  return { page, external, errors };
}

export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  return file;
}

/** One axe-core rule a page breaks, with the elements that break it. */
export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

const AXE_SOURCE = fs.readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');

/**
 * The WCAG 2.1 A and AA rules (and axe's best practices) the page as shown now breaks. axe runs
 * in the page through the DevTools protocol, which the page's Content-Security-Policy does not
 * govern, so the page is checked as a merchant gets it (no CSP relaxed for the test).
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.map(String).join(' ')) }));
  });
}

/**
 * The page as shown now at 1280 and at 390 px, as a merchant sees it at a desk and on a phone:
 * a full-page screenshot of each (`<name>-1280`, `<name>-390`), no axe violation, and nothing
 * wider than the phone. Leaves the page at 1280 px.
 */
export async function lookAtBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await screenshot(page, `${name}-${width}`, { fullPage: true });
    expect(await accessibilityViolations(page), `${name} at ${width} px`).toEqual([]);
    if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth), `${name} at 390 px`).toBeLessThanOrEqual(390);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}
