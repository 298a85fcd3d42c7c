// Real Chromium for browser tests: Debian's `chromium` package driven by
// puppeteer-core (no browser download is reachable here). CHROMIUM_PATH overrides.
import fs from 'node:fs';
import path from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, ...CANDIDATES].find((p): p is string => Boolean(p) && fs.existsSync(p!));
  if (!found) throw new Error('Chromium not found: apt-get install -y chromium (or set CHROMIUM_PATH)');
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export const SCREENSHOT_DIR = path.resolve('test-artifacts/screenshots');

/** Writes a full-page screenshot for a reviewer (test-artifacts/ is ignored by git). */
export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) as `${string}.png`, fullPage: true });
}
