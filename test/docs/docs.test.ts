/**
 * The offline docs page (npm run docs): built into a temporary folder, opened in Chromium with every non-file
 * request aborted; every operation is visited and must show its request and response schema and its requirement
 * list; no request may leave the file. The signing section's worked examples must be real signatures.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs, externalHosts, workedExample } from '../../scripts/build-docs.js';
import { sandboxCredentials } from '../../pact/interactions.js';
import { flatten } from '../../pact/schema.js';
import { loadProfile } from '../../core/profile/load.js';
import { kitSpec } from '../../core/spec/load.js';
import { KIT_ROOT } from '../../core/spec/paths.js';
import { readYamlFile } from '../../core/yaml.js';

const spec = kitSpec();
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const chromiumPath = '/usr/bin/chromium';

describe.skipIf(!fs.existsSync(chromiumPath))('offline docs page', { timeout: 180_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-docs-'));
  const file = path.join(dir, 'index.html');
  let html = '';
  let browser: Browser;
  const attempted: string[] = [];

  beforeAll(async () => {
    buildDocs(file);
    html = fs.readFileSync(file, 'utf8');
    browser = await chromium.launch({ executablePath: chromiumPath, args: CHROMIUM_FLAGS });
  });
  afterAll(async () => {
    await browser?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open(hash: string) {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      attempted.push(url);
      return route.abort('internetdisconnected');
    });
    await page.goto(`file://${file}${hash}`);
    return page;
  }

  it('is one self-contained file: no script, style or font loaded from elsewhere, no external address left', () => {
    expect(html).not.toMatch(/<script[^>]+src=/i);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:/i);
    expect(html).not.toMatch(/url\(["']?https?:/i);
    expect([...externalHosts(html).keys()]).toEqual([]);
    expect(html).toContain('"disableTelemetry":true');
  });

  it('shows formats by name and rule, never look-ahead chains of merged patterns', () => {
    expect(html).not.toContain('(?=^');
    expect(html).toMatch(/Format .{0,12}currency.{0,12} \(PAGI-FMT-003\)/);
  });

  it('visits every operation with the network off: request and response schema and requirement list visible', async () => {
    for (const [opPath, item] of Object.entries<any>(spec.openapi.paths)) {
      const post = item.post;
      const id = `${post.tags[0]}/${String(post.operationId).toLowerCase()}`;
      const page = await open(`#/${id}`);
      const section = page.locator(`[id="${id}"]`);
      await section.waitFor({ state: 'visible', timeout: 15_000 });
      const text = await section.innerText();
      for (const variant of post['x-pagi-variants']) {
        expect(text, `${opPath} requirement heading of ${variant.key}`).toContain(`(${variant.key})`);
        for (const requirement of variant.requirements) {
          const level = spec.requirements.get(requirement)!.level;
          expect(text, `${opPath} lists ${requirement}`).toMatch(new RegExp(`${requirement}\\s+${level}`));
        }
      }
      // One schema per variant: a oneOf body shows one variant at a time, switched by the variant's title.
      const variants = [...spec.operations.values()].filter((o) => o.path === opPath);
      const requestMedia = Object.keys(post.requestBody.content)[0]!;
      const responseMedia = Object.keys(post.responses['200'].content)[0]!;
      const html200 = post.responses['200'].content[responseMedia].schema.type === 'string';
      // With several statuses the responses are collapsed panels: open the 200.
      if (!(await page.locator(`[id="${id}/response&c=200/body"]`).isVisible())) {
        await page.locator(`[id="${id}/responses"]`).getByText('200', { exact: true }).first().click();
      }
      for (const [index, op] of variants.entries()) {
        const request = flatten(spec, op.requestSchemaId);
        const response = flatten(spec, op.responseSchemaId);
        const oneOf = variants.length > 1 ? `&oneof=${index}/` : '';
        if (index > 0) {
          for (const schemaId of [op.requestSchemaId, op.responseSchemaId]) {
            const title = String(spec.schemas.get(schemaId)!.title);
            await page
              .locator('button', { hasText: new RegExp(`^\\s*${title}\\s*$`) })
              .first()
              .click();
          }
        }
        for (const field of request.required.keys()) {
          const selector = `[id="${id}/t=request&ct=${requestMedia}&path=${oneOf}${field}"]`;
          await expect
            .poll(() => page.locator(selector).isVisible(), {
              timeout: 10_000,
              message: `${op.key} request field ${field}`,
            })
            .toBe(true);
        }
        await expect
          .poll(() => page.locator(`[id="${id}/response&c=200/body"]`).isVisible(), {
            timeout: 10_000,
            message: `${op.key} response body`,
          })
          .toBe(true);
        if (html200) {
          expect(await page.locator(`[id="${id}/response&c=200/body"]`).innerText()).toContain('text/html');
          continue;
        }
        for (const field of response.required.keys()) {
          const selector = `[id="${id}/t=response&c=200&path=${oneOf}${field}"]`;
          await expect
            .poll(() => page.locator(selector).isVisible(), {
              timeout: 10_000,
              message: `${op.key} response field ${field}`,
            })
            .toBe(true);
        }
      }
      await page.close();
    }
    expect(attempted).toEqual([]);
  });

  it('has a requirement catalogue page and a signing recipe per profile whose worked signatures are real', async () => {
    const page = await open('#/section/requirement-catalogue');
    await page.getByText('PAGI-GEN-008', { exact: true }).first().waitFor({ timeout: 15_000 });
    const catalogue = await page.locator('body').innerText();
    for (const id of spec.requirements.keys()) expect(catalogue).toContain(id);
    await page.goto(`file://${file}#/section/signing`);
    await page.getByText('Worked example', { exact: false }).first().waitFor({ timeout: 15_000 });
    const signing = await page.locator('body').innerText();
    const { secret } = sandboxCredentials();
    const direct = readYamlFile(path.join(KIT_ROOT, 'spec', 'examples', 'authorise-direct-request.yaml')).value;
    const capture = readYamlFile(path.join(KIT_ROOT, 'spec', 'examples', 'capture-response.yaml')).value;
    for (const name of ['reference', 'sample-hmac-sorted']) {
      const profile = loadProfile(name).profile;
      const request = workedExample(profile, 'request', 'authoriseDirect', direct, secret);
      expect(signing, `${name} direct payment request signature`).toContain(`encryption_data: ${request.signature}`);
      expect(request.signature).not.toBe(direct.encryption_data);
    }
    const reference = workedExample(loadProfile('reference').profile, 'response', 'capture', capture, secret);
    expect(signing).toContain(`encryption_data: ${reference.signature}`);
    // The operations' examples carry real signatures too, never the spec's placeholders.
    const captureRequest = readYamlFile(path.join(KIT_ROOT, 'spec', 'examples', 'capture-request.yaml')).value;
    const real = workedExample(
      loadProfile('reference').profile,
      'request',
      'capture',
      captureRequest,
      secret,
    ).signature;
    expect(html).toContain(real);
    expect(html).not.toContain(captureRequest.encryption_data);
    expect(html).not.toContain(capture.encryption_data);
    await page.close();
    expect(attempted).toEqual([]);
  });
});
