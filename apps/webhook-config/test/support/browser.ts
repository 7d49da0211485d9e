import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (npm test installs it; a browser is never downloaded). */
export const CHROMIUM = '/usr/bin/chromium';

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/**
 * Chromium, headless, in a profile of its own (a temporary directory), as the UI specs drive it: British English,
 * Zurich's time zone, `viewport` (Playwright's default size when not given), every wait at most `timeoutMs`.
 */
export async function openBrowser(
  name: string,
  { viewport, timeoutMs = 10_000 }: { viewport?: { width: number; height: number }; timeoutMs?: number } = {},
): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `Chromium is missing at ${CHROMIUM}. Install it with: apt-get update && apt-get install -y chromium (never download a browser).`,
    );
  }
  const profile = await mkdtemp(join(tmpdir(), `webhook-config-${name}-`));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    ...(viewport ? { viewport } : {}),
    locale: 'en-GB',
    timezoneId: 'Europe/Zurich',
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(timeoutMs);
  return {
    context,
    page,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
