// Headless Chromium for tests that must see a page render: Debian's `chromium` package
// (CHROMIUM_PATH overrides), driven by playwright-core, which downloads no browser.
// Every request the page makes is recorded; requests leaving 127.0.0.1 are aborted, so
// a page that needs the internet shows it both in `external` and in what renders.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ARTIFACTS_DIR = path.resolve('test-artifacts');

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
  /** Uncaught page errors and console errors. */
  errors: string[];
}

export async function openWatchedPage(browser: Browser): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
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
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  return { page, external, errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const file = path.join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: false });
  return file;
}
