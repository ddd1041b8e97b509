/**
 * lifecycle, how payments end: declined by the profile's rules (`declinedPayment`), paid by token (`tokenPayment`),
 * completed or declined on the APM issuer page (`apmCompletion`) and completed through the checkout page
 * (`checkoutCompletion`).
 */
import type { CheckContext, Exchange, Observation } from '../../core/model.js';
import { type DeclineFacts, declineOutcome, declineRuleOf } from '../../core/profile/choices.js';
import { FIELD } from '../fields.js';
import {
  type Report,
  defineCheck,
  onlyWhen,
  onlyWithSteps,
  outcomeOf,
  stepNamed,
  type Wrapper,
  quote,
  quoted,
  succeeded,
  wrap,
} from '../findings.js';
import {
  expectedCodeMessage,
  matchesCodeMessage,
  paymentStatusCode,
  queryRecords,
  responseObject,
  text,
} from '../observe.js';
import { sentBody } from './common.js';
import { declinedPayment, tokenPayment } from '../probes/basic.js';
import { apmCompletion, checkoutCompletion } from '../probes/lifecycle.js';
import { expectState } from './lifecycle-common.js';

/** What a sent payment shows the profile's decline rules (its card number, security code, e-mail and amount). */
function declineFacts(ctx: CheckContext, sent: Record<string, unknown>): DeclineFacts {
  const card = ctx.profile.fields.card;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    cardNumber: text(sent[card.number]),
    securityCode: text(sent[card.securityCode]),
    shopperEmail: sent[FIELD.shopperEmail],
    amount: sent[FIELD.amount],
  };
}

export const declinedCardDeclinedPerProfile = defineCheck({
  id: 'declinedCardDeclinedPerProfile',
  family: 'lifecycle',
  probe: declinedPayment,
  operations: ['authoriseDirect'],
  requirements: ['PAGI-PAY-013'],
  description:
    "A payment with the decline test card, and one per decline rule of the profile (card, security code, e-mail, amount), is answered with the profile's declined order_status, and the result_info and risk_action of the rule that declines it.",
  verify(o, ctx, report) {
    const declined = ctx.profile.statusValues.order_status.declined;
    const payments: [Exchange, string][] = [
      [o.main, 'the decline test card'],
      ...(o.facts.rules ?? []).map((r): [Exchange, string] => [stepNamed(o, r.step)!, `the ${r.trigger} decline rule`]),
    ];
    for (const [exchange, what] of payments) {
      const body = responseObject(exchange, ctx.spec);
      // The first rule the payment triggers decides its decline, and may word it its own way (a fraud decline).
      const rule = declineRuleOf(ctx.profile, declineFacts(ctx, sentBody(exchange)));
      const { resultInfo: info, riskAction: action } = declineOutcome(ctx.profile, rule);
      const [trigger, value] = rule ? Object.entries(rule)[0]! : [];
      const which =
        rule?.resultInfo || rule?.riskAction ? `declined by the ${trigger} ${JSON.stringify(value)} rule` : 'declined';
      if (body?.[FIELD.orderStatus] !== declined) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: `/${FIELD.orderStatus}`,
          expected: `${FIELD.orderStatus} ${JSON.stringify(declined)} (profile: declined) for ${what}`,
          received: body ? quoted(body[FIELD.orderStatus]) : outcomeOf(exchange),
        });
      }
      if (!matchesCodeMessage(info, body?.[FIELD.resultInfo])) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: `/${FIELD.resultInfo}`,
          expected: `${FIELD.resultInfo} ${expectedCodeMessage(info)} (profile: ${which}) for ${what}`,
          received: body ? quoted(body[FIELD.resultInfo]) : outcomeOf(exchange),
        });
      }
      const query = exchange === o.main ? o.steps.query : undefined;
      if (query)
        expectState(
          ctx,
          report,
          query,
          body?.[FIELD.transactionId],
          ctx.profile.transitions.afterAuthorise.declined,
          'PAGI-PAY-013',
          'a declined payment',
        );
      if (body?.risk_action !== undefined && body.risk_action !== action) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-PAY-013',
          exchange,
          pointer: '/risk_action',
          expected: `risk_action ${JSON.stringify(action)} (profile: ${which}) for ${what}`,
          received: quoted(body.risk_action),
        });
      }
    }
  },
});

export const tokenPaymentSucceeds = defineCheck({
  id: 'tokenPaymentSucceeds',
  family: 'lifecycle',
  probe: tokenPayment,
  operations: ['authoriseDirect'],
  requirements: ['PAGI-PAY-010'],
  description:
    "A payment with the profile's token_flag gets a token_id, and a payment by that token without card fields is approved.",
  verify(o, ctx, report) {
    const first = o.steps.tokenise!;
    const token = text(responseObject(first, ctx.spec), FIELD.tokenId);
    if (!token) {
      report({
        code: 'RESULT_MISSING',
        requirement: 'PAGI-PAY-010',
        exchange: first,
        pointer: `/${FIELD.tokenId}`,
        expected: `a ${FIELD.tokenId} for ${FIELD.tokenFlag} ${JSON.stringify(ctx.profile.payments.token.requestValue)}`,
        received: outcomeOf(first),
      });
      return;
    }
    const second = o.steps.byToken!;
    const status = responseObject(second, ctx.spec)?.[FIELD.orderStatus];
    if (status !== ctx.profile.statusValues.order_status.approved) {
      report({
        code: 'STATUS_VALUE',
        requirement: 'PAGI-PAY-010',
        exchange: second,
        pointer: `/${FIELD.orderStatus}`,
        expected: `the payment by ${FIELD.tokenId} approved`,
        received: `${outcomeOf(second)}, ${FIELD.orderStatus} ${quote(ctx, status)}`,
      });
    }
  },
});

/** Why a page flow could not be judged, or undefined when it could. */
function flowGap(o: Observation): string | undefined {
  if (typeof o.facts.cannotFollow === 'string') return o.facts.cannotFollow;
  return undefined;
}

/** Not applicable when the kit could not follow the page flow (the probe's `cannotFollow` says why). */
const onlyWhenFollowed = onlyWhen(
  (o) => flowGap(o) === undefined,
  (o) => flowGap(o)!,
);

export const issuerUrlRequestable = wrap(
  defineCheck({
    id: 'issuerUrlRequestable',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-003'],
    description: 'The issuer_url of an APM payment can be requested again and leads to a page.',
    verify(o, ctx, report) {
      const url = text(responseObject(o.main, ctx.spec), FIELD.issuerUrl);
      if (!url)
        return { notApplicable: `the payment answer has no ${FIELD.issuerUrl}; responseMatchesSchema reports it` };
      const page = o.steps.issuerPage!;
      if (!page.response || page.response.status >= 400) {
        report({
          code: 'PAGE_NOT_SERVED',
          requirement: 'PAGI-APM-003',
          exchange: page,
          expected: `${FIELD.issuerUrl} answered with a page`,
          received: outcomeOf(page),
        });
      }
    },
  }),
  onlyOnSuccessOf('payment'),
  onlyWhenFollowed,
);

/** Not applicable unless a step got a 2xx answer. */
function onlyOnSuccessOf<S extends string = string>(step: NoInfer<S>): Wrapper<S> {
  return onlyWhen<S>(
    (o) => succeeded(stepNamed(o, step)),
    (o) => `the ${step} step was not answered with success (${outcomeOf(stepNamed(o, step))})`,
  );
}

/** Report unless the scenario's query shows the order's payment in `state` (the profile's state of a paid payment). */
function expectCompleted(
  ctx: CheckContext,
  report: Report,
  o: Observation<'query'>,
  requirement: string,
  state: string,
): void | { notApplicable: string } {
  if (typeof o.facts.cannotQuery === 'string') return { notApplicable: o.facts.cannotQuery };
  const completion = o.facts.completion;
  if (!completion || completion.formsFollowed === 0) {
    return {
      notApplicable: `the page offers no form the kit can submit as the shopper (stopped at ${completion?.stoppedAt ?? 'the first page'}); how it is completed is the gateway's`,
    };
  }
  const query = o.steps.query!;
  const [record] = queryRecords(ctx, responseObject(query, ctx.spec), { [FIELD.orderNo]: o.facts.orderNo });
  const code = paymentStatusCode(ctx, state);
  if (!record || record[FIELD.paymentStatus] !== code) {
    report({
      code: 'PAYMENT_NOT_COMPLETED',
      requirement,
      exchange: query,
      expected: `order ${String(o.facts.orderNo)} ${state} (${String(code)}) after ${completion.formsFollowed} form(s) submitted`,
      received: record ? `${FIELD.paymentStatus} ${quote(ctx, record[FIELD.paymentStatus])}` : 'no such payment',
    });
  }
}

export const apmPaymentCompletedViaIssuerPage = wrap(
  defineCheck({
    id: 'apmPaymentCompletedViaIssuerPage',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-008'],
    description:
      'Completing the issuer page (submitting its forms as the shopper) completes the APM payment, as the query shows.',
    verify(o, ctx, report) {
      // The profile says which state a paid APM payment reaches (settled at once or authorised).
      return expectCompleted(ctx, report, o, 'PAGI-APM-008', ctx.profile.transitions.afterIssuerPage.paid);
    },
  }),
  onlyOnSuccessOf('payment'),
  onlyWhenFollowed,
  onlyWithSteps('issuerPage'),
);

export const apmPaymentDeclinedViaIssuerPage = wrap(
  defineCheck({
    id: 'apmPaymentDeclinedViaIssuerPage',
    family: 'lifecycle',
    probe: apmCompletion,
    operations: ['authoriseApm'],
    requirements: ['PAGI-APM-008'],
    description:
      "Declining on the issuer page (its declining button) leaves the APM payment in the profile's declined state, as the query shows.",
    verify(o, ctx, report) {
      if (typeof o.facts.cannotQuery === 'string') return { notApplicable: o.facts.cannotQuery };
      const completion = o.facts.declineCompletion;
      if (!completion || completion.formsFollowed === 0) {
        return {
          notApplicable: `the issuer page offers no declining button the kit can press as the shopper (stopped at ${completion?.stoppedAt ?? 'the payment'})`,
        };
      }
      const state = ctx.profile.transitions.afterIssuerPage.declined;
      const query = o.steps.declinedQuery!;
      const [record] = queryRecords(ctx, responseObject(query, ctx.spec), { [FIELD.orderNo]: o.facts.declinedOrderNo });
      const code = paymentStatusCode(ctx, state);
      if (!record) {
        report({
          code: 'RECORD_NOT_FOUND',
          requirement: 'PAGI-APM-008',
          exchange: query,
          expected: `order ${String(o.facts.declinedOrderNo)} ${state} (${String(code)}) after the shopper declined on the issuer page`,
          received: `${outcomeOf(query)} without it`,
        });
      } else if (record[FIELD.paymentStatus] !== code) {
        report({
          code: 'STATUS_VALUE',
          requirement: 'PAGI-APM-008',
          exchange: query,
          pointer: `/${FIELD.ordersList}`,
          expected: `order ${String(o.facts.declinedOrderNo)} ${state} (${String(code)}) after the shopper declined on the issuer page`,
          received: `${FIELD.paymentStatus} ${quote(ctx, record[FIELD.paymentStatus])}`,
        });
      }
    },
  }),
  // The page flow first: when the kit could not follow the first payment's page it made no second payment.
  onlyWhenFollowed,
  onlyWhen(
    (o) => succeeded(o.steps.declinedPayment),
    (o) => `the second APM payment was not answered with success (${outcomeOf(o.steps.declinedPayment)})`,
  ),
  onlyWithSteps('declinedIssuerPage', 'declinedQuery'),
);

export const checkoutPostBackCompletesPayment = wrap(
  defineCheck({
    id: 'checkoutPostBackCompletesPayment',
    family: 'lifecycle',
    probe: checkoutCompletion,
    operations: ['checkout'],
    requirements: ['PAGI-CHK-011'],
    description:
      'Posting the checkout form back and paying on the hosted page completes the payment, as the query shows.',
    verify(o, ctx, report) {
      return expectCompleted(ctx, report, o, 'PAGI-CHK-011', ctx.profile.transitions.afterAuthorise.approved);
    },
  }),
  onlyOnSuccessOf('checkout'),
  onlyWhenFollowed,
);
