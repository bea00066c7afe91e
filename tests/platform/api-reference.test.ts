/**
 * The API reference at /api/docs/ in a real browser (Debian's Chromium): it renders every tag of
 * the served document, a reader can paste a token and try a call, and nothing it loads comes from
 * elsewhere or breaks its CSP. Screenshots go to test-artifacts/ (ignored by git).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { CLUSTER_RETRY_MS, signUp, startTestCluster, type SignedUp, type TestCluster } from '../support/cluster';
import { chromiumMissing, launchChromium } from '../support/chromium';

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const missing = chromiumMissing();
if (missing) console.warn(`api-reference.test.ts skipped: ${missing}`);
const describeInBrowser = missing ? describe.skip : describe;

describeInBrowser('the API reference in a browser', () => {
  let t: TestCluster;
  let owner: SignedUp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  const problems: string[] = [];

  beforeAll(async () => {
    t = await startTestCluster({ gateways: 1, withWorkers: false });
    owner = await signUp(t.api);
    origin = new URL(t.cluster.gateways[0]!.url).origin;
    browser = await launchChromium();
    // The cluster's certificate is its own CA's; the browser is not told about that CA.
    context = await browser.newContext({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (new URL(request.url()).origin !== origin && !request.url().startsWith('data:'))
        problems.push(`request to another origin: ${request.url()}`);
    });
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} (${request.failure()?.errorText})`));
    fs.mkdirSync(ARTIFACTS, { recursive: true });
  }, 120_000 + CLUSTER_RETRY_MS);

  afterAll(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('renders a section for every tag of the served document', async () => {
    const document = (await t.api.get('/api/openapi.json')).body as { tags: { name: string }[] };
    await page.goto(`${origin}/api/docs/`);
    await page.locator('.swagger-ui .info .title').waitFor();
    for (const { name } of document.tags) await page.locator(`h3.opblock-tag[data-tag="${name}"]`).waitFor();
    expect(await page.locator('h3.opblock-tag').count()).toBe(document.tags.length);
    await page.screenshot({ path: path.join(ARTIFACTS, 'api-reference.png') });
    expect(problems).toEqual([]);
  });

  it('takes a pasted token and tries GET /api/auth/me/, answered 200', async () => {
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.locator('input').fill(owner.access);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('button.btn-done').click();

    const operation = page.locator('#operations-auth-getCurrentUser');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status');
    await status.waitFor();
    expect((await status.textContent())?.trim()).toBe('200');
    expect(await operation.locator('.live-responses-table .response .response-col_description').textContent()).toContain(owner.user.email);
    await operation.scrollIntoViewIfNeeded();
    await operation.screenshot({ path: path.join(ARTIFACTS, 'api-reference-try-it.png') });
    expect(problems).toEqual([]);
  });
});
