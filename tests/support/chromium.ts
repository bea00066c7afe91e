/**
 * Debian's Chromium for the browser tests, driven by playwright-core (which downloads no browser of
 * its own). Where none is installed a browser test skips and says why; CI installs it (.ci/run), so
 * there a missing Chromium fails instead.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** CHROMIUM_PATH, else the first of Debian's binaries that exists; null when there is none. */
export function chromiumPath(): string | null {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return configured;
  return CANDIDATES.find((candidate) => fs.existsSync(candidate)) ?? null;
}

/** Why a browser test cannot run here, or null when it can. Throws in CI, which must have Chromium. */
export function chromiumMissing(): string | null {
  if (chromiumPath()) return null;
  const reason = `no Chromium at ${CANDIDATES.join(' or ')} (nor CHROMIUM_PATH): apt-get install -y chromium`;
  if (process.env.CI === 'true') throw new Error(`${reason}; CI installs it in .ci/run, so it should be there`);
  return reason;
}

/** Headless, with nothing that calls out to the network on its own, and a fresh profile (playwright makes one). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath()!,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
