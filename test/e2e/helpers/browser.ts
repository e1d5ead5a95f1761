// Debian's Chromium driven by playwright-core, for the browser tests. Never
// downloads a browser: `bash scripts/install-chromium` installs the distro's.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { packagePath } from '../../../src/lib/package-path.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIR = packagePath('test', 'e2e', 'screenshots');

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  readonly browser: Browser;
  /** A page in a fresh context (own cookies), at a desktop size unless told otherwise. */
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/**
 * Launches headless Chromium. playwright-core gives every launch a fresh
 * temporary --user-data-dir of its own (it refuses one passed in args), so no
 * state leaks between runs.
 */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} is missing: run \`bash scripts/install-chromium\` first`);
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async newPage({ width = 1280, height = 800 } = {}) {
      const context = await browser.newContext({ viewport: { width, height } });
      contexts.push(context);
      return context.newPage();
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close();
    },
  };
}

/** Saves a full-page PNG as test/e2e/screenshots/<name>.png (git-ignored) and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}
