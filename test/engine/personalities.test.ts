/**
 * Every profile under spec/profiles is a gateway personality the reference gateway runs: a run with the matching
 * profile is CONFORMANT with no failed check of any severity; a run with a profile the gateway does not follow fails
 * with findings naming the difference; and together the runs read every setting of the profile format (the probes',
 * checks' and run metadata's reads are recorded through a proxy, PAGI_PROFILE_READS): none is left unread.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startGateway } from '../../gateway/index.js';
import type { RunResult } from '../../core/model.js';
import { profileLeaves, unreadLeaves } from '../../core/profile/leaves.js';
import { PROFILE_READS_ENV } from '../../core/profile/reads.js';
import { SCHEMAS_DIR, SPEC_DIR } from '../../core/spec/paths.js';
import { type CliOutcome, runCli } from '../support/cli.js';

const PROFILES = fs
  .readdirSync(path.join(SPEC_DIR, 'profiles'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''))
  .sort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-personalities-'));
const readsFile = (name: string) => path.join(tmp, `reads-${name}.txt`);

/** One run per profile against the embedded gateway running that profile, all started on first use (two at a time). */
let started: Map<string, Promise<CliOutcome>> | undefined;
function runs(): Map<string, Promise<CliOutcome>> {
  started ??= new Map(
    PROFILES.map((name) => [
      name,
      runCli(['--profile', name, '--reporter', 'json', '--fail-on', 'profile'], {
        [PROFILE_READS_ENV]: readsFile(name),
      }),
    ]),
  );
  return started;
}

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('gateway personalities (spec/profiles)', () => {
  it('are at least the reference and three others', () => {
    expect(PROFILES).toContain('reference');
    expect(PROFILES.length).toBeGreaterThanOrEqual(4);
  });

  for (const name of PROFILES) {
    it(`${name}: the gateway running it is CONFORMANT with no failed check of any severity`, {
      timeout: 600_000,
    }, async () => {
      const run = await runs().get(name)!;
      const results: RunResult = run.results();
      const failed = results.checks
        .filter((c) => c.status === 'failed')
        .map((c) => `${c.operation}/${c.checkId}: ${c.findings[0]?.message}`);
      const mustSkipped = results.checks
        .filter((c) => c.status === 'skipped' && c.severity === 'must')
        .map((c) => `${c.operation}/${c.checkId}: ${c.reason}`);
      expect(failed).toEqual([]);
      expect(mustSkipped).toEqual([]);
      expect(results.metadata.profile.name).toBe(name);
      expect(results.verdict).toBe('CONFORMANT');
      expect(run.code).toBe(0);
    });
  }

  it('every setting of the profile format is read by the probes and checks of these runs', {
    timeout: 600_000,
  }, async () => {
    await Promise.all(runs().values());
    const reads = PROFILES.flatMap((name) => fs.readFileSync(readsFile(name), 'utf8').split('\n').filter(Boolean));
    // The recording works: settings read by the checks of this change are among the reads.
    for (const setting of [
      'batch.checkOrder',
      'errors.precedence',
      'errors.signed',
      'errors.refusalForms.capture',
      'selection.retrievalTrans.resultOrder',
      'payout.fee.percent',
      'payout.feePaidBy.beneficiary',
      'payout.localClearingSystem',
      'refunds.reference',
      'fields.cardMask.hiddenWidth',
      'review.triggers',
      'transitions.afterIssuerPage.paid',
      'description',
      'batch.itemFailures.alreadyCaptured.message',
      'batch.itemFailures.notUnderReview.message',
      'batch.itemFailures.invalidState.message',
      'batch.itemFailures.currencyMismatch.message',
      'batch.itemSuccess.refundMessage.message',
      'review.reject.flag',
      'selection.retrievalTrans.combine',
      'selection.retrievalRefund.unmatched',
      'statusValues.payment_status.refunded',
      'transitions.refund.toFull',
      'transitions.afterIssuerPage.declined',
      'transitions.capture.otherRefusal',
      'transitions.refund.refusals',
      'transitions.review.otherRefusal',
    ]) {
      expect(
        reads.some((r) => r === setting || r.startsWith(`${setting}.`)),
        setting,
      ).toBe(true);
    }
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'profile.schema.json'), 'utf8'));
    // What an operation the profile does not name takes is read only for such an operation, which no spec of these
    // runs has: test/profile/operations.test.ts shows each of these settings used.
    const unnamedOnly = (leaf: string) => leaf.startsWith('operationDefaults.');
    // `notStated` names the points a profile does not state: the loader reads it (core/profile/stated.ts), and a read
    // of a point it names is refused (test/profile/stated.test.ts), so no probe or check reads the list itself.
    const aboutTheProfile = (leaf: string) => leaf === 'notStated';
    expect(
      unreadLeaves(profileLeaves(schema), reads).filter((leaf) => !unnamedOnly(leaf) && !aboutTheProfile(leaf)),
    ).toEqual([]);
  });
});

describe('a run with a profile the gateway does not follow', () => {
  it('fails with findings that name each difference', { timeout: 600_000 }, async () => {
    // The gateway runs the reference profile; the kit is told about another gateway with the same signing scheme.
    const reference = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
    const other = structuredClone(reference);
    other.name = 'reference-mismatched';
    other.fields.cardMask.hiddenWidth = 8;
    other.errors.kinds.invalidInput.code = '9002';
    other.errors.refusalForms.capture = ['statusInBody'];
    other.selection.retrievalTrans.resultOrder = 'newestFirst';
    other.payout.localClearingSystem = 'ACH';
    other.selection.retrievalTrans.combine = 'intersection';
    other.batch.itemFailures.cancelled = { ...other.batch.itemFailures.cancelled, message: 'Voided', pinned: true };
    other.review.reject.to = 'declined';
    const file = path.join(tmp, 'reference-mismatched.yaml');
    fs.writeFileSync(file, stringify(other));
    const gateway = await startGateway({ port: 0, host: '127.0.0.1' });
    try {
      const merchant = gateway.config.merchants[0]!;
      const account = merchant.accounts[0]!;
      const run = await runCli(
        ['--profile', file, '--target', gateway.url, '--reporter', 'json', '--fail-on', 'profile'],
        { PAGI_MERCHANT_ID: merchant.merchantId, PAGI_ACCOUNT_ID: account.accountId, PAGI_SECRET: account.secret },
      );
      const results: RunResult = run.results();
      expect(results.verdict).toBe('NOT CONFORMANT');
      expect(run.code).toBe(1);
      const findings = results.checks
        .filter((c) => c.status === 'failed')
        .flatMap((c) =>
          c.findings.map((f) => ({ check: c.checkId, operation: c.operation, code: f.code, message: f.message })),
        );
      const named = (check: string, code: string, text: RegExp) =>
        findings.some((f) => f.check === check && f.code === code && text.test(f.message));
      expect(
        named('cardMaskedPerProfile', 'CARD_MASK', /the profile's mask/),
        JSON.stringify(findings.filter((f) => f.check === 'cardMaskedPerProfile')),
      ).toBe(true);
      expect(named('wrongFormatRefused', 'ERROR_ANSWER', /9002/)).toBe(true);
      expect(
        findings.some(
          (f) => f.operation === 'capture' && f.code === 'ERROR_ANSWER' && /HTTP 200 \(statusInBody\)/.test(f.message),
        ),
      ).toBe(true);
      expect(named('selectionResultsInProfileOrder', 'RESULT_ORDER', /newest first/)).toBe(true);
      expect(named('payoutFeesPerProfile', 'PAYOUT_AMOUNTS', /local_clearing_system "ACH"/)).toBe(true);
      expect(named('selectionCombinedPerProfile', 'UNSELECTED_RECORD', /combine: intersection/)).toBe(true);
      expect(named('cancelledPaymentNotCapturable', 'ITEM_MESSAGE', /Voided/)).toBe(true);
      expect(named('rejectingReviewSettlesPayment', 'STATUS_VALUE', /declined/)).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});

describe('a run with a profile the gateway of the choices personality does not follow', () => {
  it('fails with findings that name each choice of the format it differs in', { timeout: 600_000 }, async () => {
    // The gateway runs sha256-pairs-ownshape; the kit is told the same gateway with each of its choices undone.
    const own = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'sha256-pairs-ownshape.yaml'), 'utf8'));
    const other = structuredClone(own);
    other.name = 'choices-mismatched';
    for (const rule of other.payments.declineRules) {
      delete rule.resultInfo;
      delete rule.riskAction;
    }
    delete other.errors.byOperation;
    other.errors.kinds.invalidInput.pinned = true;
    delete other.errors.precedenceByOperation;
    delete other.errors.kinds.unknownMerchant;
    other.errors.precedence = other.errors.precedence.filter((k: string) => k !== 'unknownMerchant');
    other.errors.unknownMerchant = 'badSignature';
    other.errors.refusalForms.payout = ['httpError'];
    delete other.signature.request.leaveOut;
    delete other.requestMedia.formNestedValues;
    delete other.payout.fee.decimals;
    other.checkout.derivedGatewayFields.descriptor = 'SHOP-{request.order_no}';
    other.notifications.kinds.payment.ownShape.template.event = 'payment.completed';
    const file = path.join(tmp, 'choices-mismatched.yaml');
    fs.writeFileSync(file, stringify(other));
    const gateway = await startGateway({ port: 0, host: '127.0.0.1', profile: 'sha256-pairs-ownshape' });
    try {
      const merchant = gateway.config.merchants[0]!;
      const account = merchant.accounts[0]!;
      // Only the checks naming these choices, on the operations that show them (a short run).
      const only = [
        'authoriseDirect/declinedCardDeclinedPerProfile',
        'authoriseDirect/wrongFormatRefused',
        'payout/wrongFormatRefused',
        'capture/badSignatureRefusedPerProfile',
        'cancel/badSignatureRefusedPerProfile',
        'payout/requestFaultsResolvedInProfileOrder',
        'authoriseDirect/unknownMerchantRefusedPerProfile',
        'capture/unknownMerchantRefusedPerProfile',
        'authoriseDirect/valuesSignedPerProfile',
        'payout/payoutFeesPerProfile',
        'checkout/checkoutFormHasGatewayFields',
        'authoriseDirect/notificationFollowsProfile',
      ];
      const run = await runCli(
        [
          '--profile',
          file,
          '--target',
          gateway.url,
          '--reporter',
          'json',
          '--fail-on',
          'profile',
          '--only',
          only.join(),
        ],
        { PAGI_MERCHANT_ID: merchant.merchantId, PAGI_ACCOUNT_ID: account.accountId, PAGI_SECRET: account.secret },
      );
      const results: RunResult = run.results();
      expect(results.verdict).toBe('NOT CONFORMANT');
      const findings = results.checks
        .filter((c) => c.status === 'failed')
        .flatMap((c) =>
          c.findings.map((f) => ({ check: c.checkId, operation: c.operation, code: f.code, message: f.message })),
        );
      const named = (check: string, operation: string, code: string, text: RegExp) =>
        findings.some((f) => f.check === check && f.operation === operation && f.code === code && text.test(f.message));
      const all = JSON.stringify(findings, null, 1);
      // A fraud decline worded apart from the profile's declined result_info.
      expect(
        named('declinedCardDeclinedPerProfile', 'authoriseDirect', 'STATUS_VALUE', /D000.*received "F059:/),
        all,
      ).toBe(true);
      // The capture's and the cancel's own wordings of a bad signature, and a message pinned only as a prefix.
      expect(named('badSignatureRefusedPerProfile', 'capture', 'NOT_REFUSED', /"C401:Capture signature/), all).toBe(
        true,
      );
      expect(named('badSignatureRefusedPerProfile', 'cancel', 'NOT_REFUSED', /"V401:Cancel signature/), all).toBe(true);
      expect(
        named(
          'wrongFormatRefused',
          'authoriseDirect',
          'ERROR_ANSWER',
          /"E422:Invalid request" .*received "E422:Invalid request: /,
        ),
        all,
      ).toBe(true);
      // The payout's own check order: its input before the signature.
      expect(
        named('requestFaultsResolvedInProfileOrder', 'payout', 'ERROR_ANSWER', /badSignature: HTTP 401.*HTTP 400/),
        all,
      ).toBe(true);
      // An unknown merchant as a kind of its own, and a payout refused with failure fields under an HTTP error.
      expect(named('unknownMerchantRefusedPerProfile', 'authoriseDirect', 'ERROR_ANSWER', /E401.*E410/), all).toBe(
        true,
      );
      expect(named('unknownMerchantRefusedPerProfile', 'capture', 'NOT_REFUSED', /"E410:Unknown merchant/), all).toBe(
        true,
      );
      expect(named('wrongFormatRefused', 'payout', 'ERROR_ANSWER', /return_message .*received nothing/), all).toBe(
        true,
      );
      // Booleans and nulls left out of the signature; nested form values signed as the text sent.
      expect(named('valuesSignedPerProfile', 'authoriseDirect', 'REQUEST_REFUSED', /boolean and a null/), all).toBe(
        true,
      );
      expect(named('valuesSignedPerProfile', 'authoriseDirect', 'REQUEST_REFUSED', /nested values/), all).toBe(true);
      // A fee kept to the cent, an input computed from the request, a notification in the gateway's own shape.
      expect(named('payoutFeesPerProfile', 'payout', 'PAYOUT_AMOUNTS', /fee_amount 13 .*received 12\.5/), all).toBe(
        true,
      );
      expect(named('checkoutFormHasGatewayFields', 'checkout', 'FORM_INPUT_VALUE', /SHOP-/), all).toBe(true);
      expect(
        named('notificationFollowsProfile', 'authoriseDirect', 'NOTIFICATION_FORM', /payment\.completed/),
        all,
      ).toBe(true);
    } finally {
      await gateway.close();
    }
  });
});
