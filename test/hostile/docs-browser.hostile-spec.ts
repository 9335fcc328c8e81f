import { existsSync, mkdtempSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import request from 'supertest';
import { startTestApp, testDatabaseKind, type TestApp } from '../app.factory.js';
import { givenClient, type TestClient } from '../support/auth.js';

/**
 * The docs page in a real browser (Debian's chromium driven by playwright-core,
 * headless, nothing downloaded): /api/docs renders one operation block for
 * every operation of /api/v1/openapi.json, nothing missing and nothing extra;
 * the page raises no Content-Security-Policy violation, console error or page
 * error (helmet's policy must let Swagger UI run); and "Try it out" works
 * through the UI: Execute on GET /api/v1/Item shows 401 before "Authorize",
 * and 200 with the item after the bearer token is entered in the dialog, the
 * request reaching the service with that token. Opened by a host name over
 * plain HTTP, the page renders too.
 *
 * CHROMIUM_PATH=<path> picks another chromium; screenshots go to a temp dir
 * whose path is printed.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** A host name for the service, resolved by chromium itself to the loopback address. */
const HOST_NAME = 'inventory.test';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
  `--host-resolver-rules=MAP ${HOST_NAME} 127.0.0.1`,
];
const UI_TIMEOUT = 60_000;
const SHORT_ID = `DOCS-${process.pid}`;

/** Swagger UI puts zero-width spaces into long paths so that they wrap. */
const clean = (s: string) => s.replace(/[\u200b\s]+/g, '');
/** The status cell reads e.g. "200" or "200 Undocumented" (a code the document does not list). */
const code = async (cell: Locator) => /^\s*(\d{3})\b/.exec(await cell.innerText())?.[1];

describe(`the docs page in chromium on ${testDatabaseKind()}`, () => {
  let t: TestApp;
  let base: string;
  let client: TestClient;
  let browser: Browser | undefined;
  let page: Page;
  let shots: string;
  /** What the browser reported: console errors, page errors, CSP violations, failed requests. */
  const problems: string[] = [];
  /** Requests the service answered, as it saw them. */
  const served: { method: string; url: string; authorization?: string; status: number }[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(`chromium not found at ${CHROMIUM}: install it with \`apt-get install chromium\` (or set CHROMIUM_PATH)`);
    }
    t = await startTestApp();
    await t.app.listen(0, '127.0.0.1');
    base = `http://127.0.0.1:${(t.app.getHttpServer().address() as { port: number }).port}`;
    (t.app.getHttpServer() as Server).on('request', (req: IncomingMessage, res: ServerResponse) =>
      res.on('finish', () => served.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization, status: res.statusCode })),
    );
    client = await givenClient(t, { warehouses: [1] });
    const item = await request(t.http).post('/api/v1/Item').set('Authorization', client.bearer).send({ shortID: SHORT_ID, description: 'Docs page item' });
    if (item.status !== 201) throw new Error(`item: ${item.status} ${item.text}`);

    shots = mkdtempSync(join(tmpdir(), 'docs-browser-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true, timeout: UI_TIMEOUT });
    page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    page.setDefaultTimeout(UI_TIMEOUT);
    // Blocked scripts and styles do not always reach the console; the event always fires.
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) =>
      console.error('CSP violation: ' + e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));`);
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`));
    const res = await page.goto(`${base}/api/docs`, { waitUntil: 'load' });
    if (res?.status() !== 200) throw new Error(`GET /api/docs: ${res?.status()}`);
    process.stdout.write(`docs-browser: chromium ${browser.version()}, ${base}/api/docs, screenshots in ${shots}\n`);
  });

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await t?.close();
    }
  });

  it('shows one operation block for every operation in the OpenAPI document, and no other', async () => {
    const doc = await request(t.http).get('/api/v1/openapi.json');
    expect(doc.status).toBe(200);
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const expected = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, item]) => Object.keys(item).filter((m) => methods.includes(m)).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(expected.length).toBeGreaterThan(10);
    expect(expected).toContain('GET /api/v1/Item');

    await page.waitForSelector('.opblock .opblock-summary-path');
    // All tags are expanded by default; wait until as many blocks as operations are there (or time out and compare).
    await page.waitForFunction(`document.querySelectorAll('.opblock').length >= ${expected.length}`, undefined, { timeout: 20_000 }).catch(() => undefined);
    const blocks = page.locator('.opblock');
    const shown: string[] = [];
    for (let i = 0; i < (await blocks.count()); i++) {
      const block = blocks.nth(i);
      const method = clean(await block.locator('.opblock-summary-method').innerText());
      const path = block.locator('.opblock-summary-path');
      const text = clean(await path.innerText());
      expect(await path.getAttribute('data-path')).toBe(text);
      shown.push(`${method} ${text}`);
    }
    expect(shown.sort()).toEqual(expected);
    await page.screenshot({ path: join(shots, 'operations.png'), fullPage: true });
  });

  it('"Try it out" on GET /api/v1/Item: 401 without a token, 200 with the item after Authorize', async () => {
    const op = page.locator('.opblock.opblock-get').filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/Item"]') });
    await expect(op.count()).resolves.toBe(1);
    await op.locator('.opblock-summary-control').click();
    await op.locator('button.try-out__btn').click();
    const execute = op.locator('button.execute');
    const live = op.locator('.live-responses-table');
    const status = live.locator('tbody .response .response-col_status');
    const body = live.locator('.response-col_description .highlight-code');

    // Without Authorize: the service refuses the same request.
    await execute.click();
    await status.waitFor();
    expect(await code(status)).toBe('401');
    expect(served.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/Item')).map((r) => [r.status, r.authorization])).toEqual([[401, undefined]]);
    await op.locator('button.btn-clear').click();
    await status.waitFor({ state: 'detached' });

    // Authorize with the token from POST /api/v1/Token, then close the dialog.
    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.modal-ux');
    // The dialog holds one form per scheme (bearer for the API, basic for POST /Token).
    const bearerForm = dialog.locator('form').filter({ has: page.locator('input#auth-bearer-value') });
    await bearerForm.locator('input#auth-bearer-value').fill(client.token);
    await bearerForm.locator('button.auth.authorize[type="submit"]').click();
    // Once authorized the bearer form loses its input; any Close button closes the dialog.
    await dialog.locator('button.btn-done').first().click();
    await dialog.waitFor({ state: 'detached' });
    await expect(page.locator('.auth-wrapper button.authorize').getAttribute('class')).resolves.toMatch(/\blocked\b/);

    await execute.click();
    await status.waitFor();
    expect(await code(status)).toBe('200');
    const shownBody = await body.innerText();
    expect(shownBody).toContain(`"shortID": "${SHORT_ID}"`);
    expect(await op.locator('.curl-command, .curl').first().innerText()).toContain(`Authorization: Bearer ${client.token}`);
    // The service saw exactly two such requests: the refused one, then this one with the token.
    const calls = served.filter((r) => r.method === 'GET' && r.url.startsWith('/api/v1/Item'));
    expect(calls.map((r) => [r.status, r.authorization])).toEqual([[401, undefined], [200, client.bearer]]);
    await page.screenshot({ path: join(shots, 'try-it-out.png'), fullPage: true });
  });

  it('renders when opened over plain HTTP by host name, not only by loopback address', async () => {
    // A CSP with upgrade-insecure-requests once sent every script to https:// here: an empty page.
    const byName = await browser!.newPage();
    const failed: string[] = [];
    byName.on('requestfailed', (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`));
    const url = base.replace('127.0.0.1', HOST_NAME);
    const res = await byName.goto(`${url}/api/docs`, { waitUntil: 'load' });
    expect(res?.status()).toBe(200);
    await byName.waitForSelector('.opblock .opblock-summary-path', { timeout: 20_000 });
    expect(await byName.locator('.opblock').count()).toBeGreaterThan(10);
    expect(failed).toEqual([]);
    await byName.close();
  });

  it('raises no CSP violation, console error or page error (only the intended 401)', async () => {
    // Let late errors (a blocked font, a failed fetch) arrive before looking.
    await page.waitForLoadState('networkidle');
    const intended = (p: string) => /status of 401/.test(p) && p.includes(`(${base}/api/v1/Item`);
    expect(problems.filter((p) => !intended(p))).toEqual([]);
    expect(problems.filter(intended)).toHaveLength(1);
  });
});
