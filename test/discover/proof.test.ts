/**
 * Proof of `profile discover` (README: "Certify your gateway"): for each personality under spec/profiles, the
 * reference gateway serves it, `pagi-conform profile discover` drafts a profile of it from the outside, and:
 * - the draft is valid (`profile validate` exits 0);
 * - it states no wrong value: every leaf it states is the personality's, or says what the gateway does where the
 *   profile holds more than any answer shows (core/profile/agreement.ts `statedAgreement`); a point it leaves out
 *   (profile format 6: not stated) is neither right nor wrong; together the drafts state at least 90 % of the
 *   personalities' leaves (issue #34's goal, a share over gateways), each at least 85 % (a gateway holding no payment
 *   for review, legacy-sha256-pipe, shows nothing of its sixteen held-payment points), the shares printed;
 * - `pagi-conform run --profile <draft>` against the same gateway is CONFORMANT with no failed check of any severity
 *   (both verdicts): it also judges the leaves compared by the run (a notification schema, its signature).
 * A gateway the kit's authors never saw (test/support/unseen-profile.ts) is discovered too: the draft is valid, states
 * no wrong value, and a run with it has no failed `must` check and at most three failed checks. Discoveries and runs are child processes,
 * two at a time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import type { RunResult } from '../../core/model.js';
import { leftOutPoints, statedAgreement } from '../../core/profile/agreement.js';
import { completed } from '../../core/profile/load.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { type CliOutcome, type CliRun, pagiConform, runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { unseenProfile } from '../support/unseen-profile.js';

const PERSONALITIES = fs
  .readdirSync(path.join(SPEC_DIR, 'profiles'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''))
  .sort();
const dir = tempDir('pagi-discover-proof-');

/** One gateway, its discovery and the run with the draft. */
interface Proof {
  secret: string;
  profileFile: string;
  draftFile: string;
  discover: CliRun;
  run?: CliOutcome;
}

const gateways: RunningGateway[] = [];
const proofs = new Map<string, Promise<Proof>>();

/** Serve `profile`, discover it, run with the draft (the run only when the draft was written). */
async function prove(name: string, profile: string): Promise<Proof> {
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile });
  gateways.push(gw);
  const merchant = gw.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  const config = path.join(dir, `${name}.config.yaml`);
  fs.writeFileSync(
    config,
    `merchantId: ${merchant.merchantId}\naccountId: ${account.accountId}\nsecret: ${account.secret}\n` +
      `paymentMethods:\n  valid: ${JSON.stringify(gw.config.apm.paymentMethods)}\n  unknown: PAGI_KIT_UNKNOWN\n`,
  );
  const draftFile = path.join(dir, `${name}.discovered.yaml`);
  const target = ['--target', gw.baseUrl, '--config', config];
  const discover = await pagiConform(['profile', 'discover', ...target, '--out', draftFile], {}, 180_000);
  const secret = account.secret;
  if (!fs.existsSync(draftFile)) return { secret, profileFile: profile, draftFile, discover };
  const run = await runCli([...target, '--profile', draftFile, '--reporter', 'json', '--fail-on', 'profile']);
  return { secret, profileFile: profile, draftFile, discover, run };
}

function failedChecks(results: RunResult): string[] {
  return results.checks
    .filter((c) => c.status === 'failed')
    .map((c) => `${c.severity} ${c.operation}/${c.checkId}: ${c.findings[0]?.message}`);
}

/** Each personality's stated leaves, for the share over all of them. */
const shares = new Map<string, { stated: number; leaves: number }>();

beforeAll(() => {
  for (const name of PERSONALITIES) proofs.set(name, prove(name, name));
  proofs.set('unseen-vendor', prove('unseen-vendor', unseenProfile(dir)));
});
afterAll(async () => {
  await Promise.allSettled(proofs.values());
  await Promise.all(gateways.map((g) => g.close()));
});

describe('profile discover: serve a personality, discover it, run with the draft', () => {
  for (const name of PERSONALITIES) {
    it(`${name}: a valid draft stating ≥ 85 % of the leaves, none of them wrong, and its run CONFORMANT with 0 failed`, {
      timeout: 900_000,
    }, async () => {
      const proof = await proofs.get(name)!;
      expect(proof.discover.code, proof.discover.stderr.slice(-3000)).toBe(0);
      expect(proof.discover.stdout).toMatch(/\d+ UNKNOWN/);
      const check = await pagiConform(['profile', 'validate', proof.draftFile]);
      expect(check.code, `${check.stdout}${check.stderr}`).toBe(0);
      const text = fs.readFileSync(proof.draftFile, 'utf8');
      const draft = parse(text);
      // Masked like a run: no secret anywhere; a test card number only where the profile names it.
      expect(`${proof.discover.stdout}${proof.discover.stderr}${text}`).not.toContain(proof.secret);
      const cards = Object.values(draft.payments.testCards as Record<string, string[]>).flat();
      const cardLines = text.split('\n').filter((l) => cards.some((c) => l.includes(c)));
      expect(
        cardLines.every((l) => /^\s+(approve|decline): \[/.test(l)),
        cardLines.join('\n'),
      ).toBe(true);
      const personality = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', `${name}.yaml`), 'utf8'));
      const unstated = leftOutPoints(draft, completed(draft).unstated);
      const agreement = statedAgreement(personality, draft, unstated);
      const share = agreement.stated / agreement.leaves;
      console.info(
        `${name}: ${agreement.stated}/${agreement.leaves} leaves stated (${(share * 100).toFixed(1)} %), ${agreement.wrong.length} wrong; judged by the run: ${agreement.byRun.join(', ') || 'none'}`,
      );
      expect(
        agreement.wrong.map(
          (d) => `${d.path}: the gateway's ${JSON.stringify(d.expected)}, the draft's ${JSON.stringify(d.received)}`,
        ),
        `${name}: stated values that are wrong`,
      ).toEqual([]);
      shares.set(name, { stated: agreement.stated, leaves: agreement.leaves });
      expect(share, `${name}: ${agreement.stated}/${agreement.leaves} leaves stated`).toBeGreaterThanOrEqual(0.85);
      const results = proof.run!.results();
      expect(results.verdicts?.integrity.verdict).toBe('PASSED');
      expect(failedChecks(results)).toEqual([]);
      expect(results.verdicts?.document.verdict).toBe('CONFORMANT');
      expect(proof.run!.code).toBe(0);
    });
  }

  it('the personalities’ drafts together state ≥ 90 % of their leaves', () => {
    expect([...shares.keys()].sort()).toEqual([...PERSONALITIES].sort());
    const stated = [...shares.values()].reduce((n, f) => n + f.stated, 0);
    const leaves = [...shares.values()].reduce((n, f) => n + f.leaves, 0);
    console.info(`personalities: ${stated}/${leaves} leaves stated (${((100 * stated) / leaves).toFixed(1)} %)`);
    expect(stated / leaves).toBeGreaterThanOrEqual(0.9);
  });

  it('a gateway the kit’s authors never saw: exit 0, a valid draft stating no wrong value, a run with no failed must and at most 3 failed', {
    timeout: 900_000,
  }, async () => {
    const proof = await proofs.get('unseen-vendor')!;
    expect(proof.discover.code, proof.discover.stderr.slice(-3000)).toBe(0);
    const check = await pagiConform(['profile', 'validate', proof.draftFile]);
    expect(check.code, check.stderr).toBe(0);
    // Its profile is known here: no value the draft states is wrong either.
    const draft = parse(fs.readFileSync(proof.draftFile, 'utf8'));
    const unstated = leftOutPoints(draft, completed(draft).unstated);
    const agreement = statedAgreement(parse(fs.readFileSync(proof.profileFile, 'utf8')), draft, unstated);
    console.info(
      `unseen-vendor: ${agreement.stated}/${agreement.leaves} leaves stated (${((agreement.stated / agreement.leaves) * 100).toFixed(1)} %), ${agreement.wrong.length} wrong`,
    );
    expect(
      agreement.wrong.map(
        (d) => `${d.path}: the gateway's ${JSON.stringify(d.expected)}, the draft's ${JSON.stringify(d.received)}`,
      ),
    ).toEqual([]);
    const failed = failedChecks(proof.run!.results());
    expect(
      failed.filter((f) => f.startsWith('must ')),
      failed.join('\n'),
    ).toEqual([]);
    expect(failed.length, failed.join('\n')).toBeLessThanOrEqual(3);
  });
});
