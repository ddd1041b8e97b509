/** Leaf agreement of two profiles (core/profile/agreement.ts): the figure `profile discover` is judged by. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { leafAgreement, renamedLabels, statedAgreement } from '../../core/profile/agreement.js';
import { labelPlaces } from '../../core/profile/leaves.js';
import { SCHEMAS_DIR } from '../../core/spec/paths.js';

describe('leafAgreement', () => {
  it('counts the reference leaves the other holds alike; sets compare as sets, other lists in order', () => {
    const reference = {
      payments: { testCards: { approve: ['1', '2'] } },
      signature: { request: { fields: { capture: ['a', 'b'] } } },
      review: { triggers: {} },
      notifications: { retry: { factor: 2 } },
    };
    const other = {
      payments: { testCards: { approve: ['2', '1'] } },
      signature: { request: { fields: { capture: ['b', 'a'] } } },
      review: { triggers: {} },
      notifications: { retry: { factor: 2, extra: true } },
    };
    const a = leafAgreement(reference, other);
    expect(a.leaves).toBe(4);
    expect(a.agreeing).toBe(3);
    expect(a.disagreements).toEqual([
      { path: 'signature.request.fields.capture', expected: ['a', 'b'], received: ['b', 'a'] },
    ]);
    expect(a.extra).toEqual([{ path: 'notifications.retry.extra', value: true }]);
  });

  it("leaves out the profile's labels (name, version, description), which no probe can tell", () => {
    const a = leafAgreement({ name: 'x', version: '1', description: 'd', format: 5 }, { name: 'y', format: 5 });
    expect(a).toMatchObject({ leaves: 1, agreeing: 1, ratio: 1 });
  });

  it('counts a leaf the other lacks as a disagreement', () => {
    const a = leafAgreement({ errors: { signed: true } }, {});
    expect(a.ratio).toBe(0);
    expect(a.disagreements[0]).toEqual({ path: 'errors.signed', expected: true, received: undefined });
  });
});

describe('statedAgreement: the values a draft states, judged against the gateway it was drafted from', () => {
  const reference = {
    name: 'gw',
    fields: { card: { luhnCheck: true } },
    payments: { testCards: { approve: ['4111111111111111'] }, declineRules: [{ cardNumberSuffix: '0002' }] },
    batch: {
      checkOrder: ['currencyMismatch', 'invalidItem', 'unknownTransaction', 'amountMismatch', 'state', 'overAmount'],
    },
    errors: { refusalForms: { payout: ['failureType', 'httpError'], capture: ['statusInBody'] } },
    selection: {
      retrievalTrans: { fields: ['transaction_id', 'order_no'], combine: 'union', resultOrder: 'newestFirst' },
      retrievalRefund: { fields: ['transaction_id', 'order_no'], combine: 'union', resultOrder: 'listOrder' },
    },
    notifications: { kinds: { payment: { sentAfter: ['authoriseDirect', 'checkout'] } }, signature: 'sortedPairs' },
    review: { triggers: { amountAtLeast: '5000.00', shopperEmailDomains: ['screen.example'] } },
  };
  const draft = () => structuredClone(reference) as any;

  it('a draft equal to the profile states every leaf and none wrongly; a point left out is neither right nor wrong', () => {
    const a = statedAgreement(reference, draft(), []);
    expect(a).toMatchObject({ stated: a.leaves, wrong: [], byRun: ['notifications.signature'] });
    const partial = draft();
    delete partial.review.triggers.shopperEmailDomains;
    const b = statedAgreement(reference, partial, ['review.triggers.shopperEmailDomains']);
    expect(b).toMatchObject({ stated: a.leaves - 1, wrong: [] });
    // A profile's `null` over points the draft leaves out: not stated; a point stated below it is wrong.
    const never = { ...structuredClone(reference), review: { triggers: null } };
    const out = draft();
    delete out.review.triggers;
    const triggers = ['review.triggers.amountAtLeast', 'review.triggers.shopperEmailDomains'];
    expect(statedAgreement(never, out, triggers)).toMatchObject({ stated: a.leaves - 2, wrong: [] });
    expect(statedAgreement(never, partial, triggers.slice(1)).wrong.map((w) => w.path)).toEqual(['review.triggers']);
  });

  it('a value stated otherwise is wrong, and so is a leaf stated as missing', () => {
    const d = draft();
    d.review.triggers.shopperEmailDomains = [];
    delete d.review.triggers.amountAtLeast;
    expect(statedAgreement(reference, d, []).wrong.map((w) => w.path)).toEqual([
      'review.triggers.amountAtLeast',
      'review.triggers.shopperEmailDomains',
    ]);
  });

  it('judges by what the gateway does where the profile holds more than any answer shows', () => {
    const d = draft();
    d.payments.testCards.approve = ['5555555555554444']; // another approving card
    d.errors.refusalForms.payout = ['failureType']; // the form the gateway answers with
    d.selection.retrievalTrans.fields = ['order_no', 'transaction_id']; // no order shows: newest first
    d.notifications.signature = 'asResponse'; // the run verifies it
    d.batch = {
      checkOrder: ['unknownTransaction', 'currencyMismatch', 'invalidItem', 'amountMismatch', 'state', 'overAmount'],
    };
    // A payment notification after a review the reference gateway never sends (no payment is made by a review).
    const afterReview = structuredClone(reference) as any;
    afterReview.notifications.kinds.payment.sentAfter.push('review');
    expect(statedAgreement(afterReview, d, []).wrong).toEqual([]);
    const w = draft();
    w.payments.testCards.approve = ['4111111111110002']; // declined by a rule
    w.errors.refusalForms.payout = ['httpError']; // not the form the gateway answers with
    w.errors.refusalForms.capture = ['statusInBody', 'httpError']; // a form the gateway never uses
    w.selection.retrievalRefund.fields = ['order_no', 'transaction_id']; // a union in list order shows the order
    w.notifications.kinds.payment.sentAfter = ['authoriseDirect'];
    // The ill-formed item checked before the currency: another answer to an ill-formed item of another currency.
    w.batch.checkOrder = [
      'invalidItem',
      'unknownTransaction',
      'currencyMismatch',
      'amountMismatch',
      'state',
      'overAmount',
    ];
    expect(
      statedAgreement(reference, w, [])
        .wrong.map((x) => x.path)
        .sort(),
    ).toEqual([
      'batch.checkOrder',
      'errors.refusalForms.capture',
      'errors.refusalForms.payout',
      'notifications.kinds.payment.sentAfter',
      'payments.testCards.approve',
      'selection.retrievalRefund.fields',
    ]);
  });

  it('judges a refusal by the failure of its state, a payout notification by the payout, an alias by a source the request can hold', () => {
    const states = { authorised: '1', captured: '2', cancelled: '3', declined: '4' };
    const truth = {
      statusValues: { payment_status: states },
      transitions: {
        review: { from: ['authorised'], refusals: { cancelled: 'invalidState' }, otherRefusal: 'notUnderReview' },
      },
      notifications: { kinds: { payout: { sentAfter: ['payout', 'review'] } } },
      checkout: { aliases: { isOpen3D: 'OPEN3D', shipCountry: 'delivery_country' } },
    };
    // The same failure per state written the other way round; a review the reference gateway never notifies after;
    // a source no checkout request holds, which shows as no source.
    const alike = {
      ...structuredClone(truth),
      transitions: {
        review: {
          from: ['authorised'],
          refusals: { captured: 'notUnderReview', declined: 'notUnderReview' },
          otherRefusal: 'invalidState',
        },
      },
      notifications: { kinds: { payout: { sentAfter: ['payout'] } } },
      checkout: { aliases: { isOpen3D: null, shipCountry: 'delivery_country' } },
    };
    expect(statedAgreement(truth, alike, []).wrong).toEqual([]);
    const other = structuredClone(alike) as any;
    other.transitions.review.refusals = { captured: 'notUnderReview' }; // declined now answers invalidState
    other.notifications.kinds.payout.sentAfter = ['payout', 'cancel'];
    other.checkout.aliases.shipCountry = null; // a field the request holds
    expect(
      statedAgreement(truth, other, [])
        .wrong.map((x) => x.path)
        .sort(),
    ).toEqual([
      'checkout.aliases.shipCountry',
      'notifications.kinds.payout.sentAfter',
      'transitions.review.otherRefusal',
    ]);
    // A state the draft leaves unstated is not judged through the other refusal.
    expect(
      statedAgreement(truth, other, ['transitions.review.refusals.declined']).wrong.map((x) => x.path),
    ).not.toContain('transitions.review.otherRefusal');
  });
});

describe("renamedLabels: a state's name is the profile's label, its payment_status value what the gateway shows", () => {
  const truth = {
    statusValues: { payment_status: { authorised: '3000', pendingReview: '3200', refunded: '4100' } },
    transitions: {
      afterAuthorise: { approved: 'authorised', pendingReview: 'refunded' },
      refund: { from: ['captured'], toFull: 'refunded', refusals: { refunded: 'overRefund' } },
    },
    review: { approve: { to: 'authorised' } },
  };
  // Held payments are queried with the refunded value: the draft names their state after the outcome that made it.
  const drafted = {
    statusValues: { payment_status: { authorised: '3000', pendingReview: '4100' } },
    transitions: {
      afterAuthorise: { approved: 'authorised', pendingReview: 'pendingReview' },
      refund: { from: ['captured'], toFull: 'pendingReview', refusals: { pendingReview: 'overRefund' } },
    },
    review: { approve: { to: 'authorised' } },
  };

  it('a draft naming the states otherwise but alike in every value and transition agrees', () => {
    const r = renamedLabels(truth, drafted, [
      'statusValues.payment_status.refunded',
      'transitions.refund.refusals.refunded',
    ]);
    expect([...r.states]).toEqual([
      ['pendingReview', 'refunded'],
      ['refunded', 'pendingReview'],
    ]);
    expect(r.draft).toMatchObject({
      statusValues: { payment_status: { authorised: '3000', refunded: '4100' } },
      transitions: {
        afterAuthorise: { pendingReview: 'refunded' },
        refund: { toFull: 'refunded', refusals: { refunded: 'overRefund' } },
      },
    });
    expect(r.unstated).toEqual([
      'statusValues.payment_status.pendingReview',
      'transitions.refund.refusals.pendingReview',
    ]);
    expect(statedAgreement(truth, drafted, ['statusValues.payment_status.refunded']).wrong).toEqual([]);
  });

  it('a renaming never hides a behaviour: a transition to another state is still wrong under the names', () => {
    const other = structuredClone(drafted);
    other.transitions.refund.toFull = 'authorised';
    expect(statedAgreement(truth, other, ['statusValues.payment_status.refunded']).wrong.map((w) => w.path)).toEqual([
      'transitions.refund.toFull',
    ]);
    // Two states' values swapped: the transitions naming them disagree.
    const swapped = structuredClone(truth) as any;
    swapped.statusValues.payment_status = { authorised: '4100', pendingReview: '3200', refunded: '3000' };
    expect(
      statedAgreement(truth, swapped, [])
        .wrong.map((w) => w.path)
        .sort(),
    ).toEqual([
      'review.approve.to',
      'transitions.afterAuthorise.approved',
      'transitions.afterAuthorise.pendingReview',
      'transitions.refund.refusals.refunded',
      'transitions.refund.toFull',
    ]);
  });

  it("a draft under the profile's own names is left as it is", () => {
    expect(renamedLabels(truth, truth, ['x'])).toMatchObject({ states: new Map(), failures: new Map() });
  });

  it("the places naming states are derived from the profile schema's paymentState", () => {
    const schema = JSON.parse(fs.readFileSync(path.join(SCHEMAS_DIR, 'profile.schema.json'), 'utf8'));
    const places = labelPlaces(schema, 'paymentState');
    expect(places.names).toContain('partiallyRefunded');
    expect(places.values).toEqual(
      expect.arrayContaining([
        'transitions.afterAuthorise.pendingReview',
        'transitions.refund.toFull',
        'review.reject.to',
      ]),
    );
    expect(places.keys).toEqual(expect.arrayContaining(['statusValues.payment_status', 'transitions.review.refusals']));
    expect(places.keys).not.toContain('statusValues.order_status');
    const failures = labelPlaces(schema, 'itemFailure');
    expect(failures.keys).toEqual(['batch.itemFailures']);
    expect(failures.values).toEqual(expect.arrayContaining(['transitions.refund.otherRefusal', 'refunds.partial']));
  });

  it('a failure named after a state is a label too: its code and message are what shows, a fault of its own is not', () => {
    const truth = {
      batch: {
        itemFailures: {
          overRefund: { code: 'E432', message: 'Amount exceeds balance' },
          alreadyCaptured: { code: 'B008', message: 'Already captured' },
          invalidState: { code: 'B010', message: 'Not allowed now' },
        },
      },
      transitions: { refund: { refusals: { captured: 'alreadyCaptured' }, otherRefusal: 'invalidState' } },
    };
    const drafted = structuredClone(truth) as any;
    drafted.batch.itemFailures = {
      overRefund: { code: 'E432', message: 'Amount exceeds balance' },
      alreadyCaptured: { code: 'B010', message: 'Not allowed now' },
      invalidState: { code: 'B008', message: 'Already captured' },
    };
    drafted.transitions.refund = { refusals: { captured: 'invalidState' }, otherRefusal: 'alreadyCaptured' };
    expect(renamedLabels(truth, drafted, []).failures.get('alreadyCaptured')).toBe('invalidState');
    expect(statedAgreement(truth, drafted, []).wrong).toEqual([]);
    // A failure of its own fault keeps its name: an over-refund answered with another code is wrong.
    drafted.batch.itemFailures.overRefund = { code: 'B010', message: 'Not allowed now' };
    expect(
      statedAgreement(truth, drafted, [])
        .wrong.map((w) => w.path)
        .sort(),
    ).toEqual(['batch.itemFailures.overRefund.code', 'batch.itemFailures.overRefund.message']);
  });
});
