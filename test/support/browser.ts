// Headless Chromium for tests that must see a page render: Debian's `chromium` package
// (CHROMIUM_PATH overrides), driven by playwright-core, which downloads no browser.
// Every request the page makes is recorded; requests leaving 127.0.0.1 are aborted, so
// a page that needs the internet shows it both in `external` and in what renders.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

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
