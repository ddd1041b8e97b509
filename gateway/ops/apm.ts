/**
 * APM payment (`/v1/authorise` with `payment_method`): answers `issuer_url`, a page of this gateway where the
 * shopper pays or declines (`/issuer/<token>`). Completing it creates the payment; until then the payment does
 * not exist (no state of the profile stands for "waiting for the shopper").
 */
import { resolveAccount } from '../config.js';
import {
  echo,
  liveSession,
  openSession,
  ordered,
  str,
  type Gateway,
  type OperationHandler,
  type Refusal,
} from '../context.js';
import { errorReply, signResponse } from '../errors.js';
import { pageReply, type Reply } from '../reply.js';
import { Store, type Session } from '../store.js';
import { createPayment, paymentNeeds } from './payment.js';
import { resultPage } from './pages.js';

/** Path prefix of the issuer pages. */
export const ISSUER_PATH = '/issuer/';

/** The APM payment operation. */
export const apmPayment: OperationHandler = {
  refusals(req, gw) {
    const out: Refusal[] = paymentNeeds(req.body);
    const method = str(req.body, 'payment_method');
    if (!method || !gw.config.apm.paymentMethods.includes(method))
      out.push({ kind: 'unknownRecord', reason: 'payment_method is not offered' });
    return out;
  },
  run(req, gw): Reply {
    const token = Store.token();
    openSession(gw, {
      token,
      kind: 'apm',
      merchantId: req.account.merchant.merchantId,
      accountId: req.account.account.accountId,
      request: req.body,
      createdAt: gw.now(),
    });
    const values: Record<string, unknown> = { issuer_url: `${gw.baseUrl}${ISSUER_PATH}${token}` };
    echo(req.op.model, req.body, values);
    const body = signResponse(gw, 'authoriseApm', ordered(req.op.responseFields, values), req.account.secret);
    return { kind: 'xml', status: 200, root: req.op.xmlRoot!, body };
  },
};

/** Complete an APM session: the payment is made (or declined) once; later requests show its result. */
function complete(gw: Gateway, session: Session, decline: boolean): void {
  const account = resolveAccount(gw.config, session.merchantId, session.accountId);
  if (!account) return;
  const { txn } = createPayment(gw, {
    source: 'authoriseApm',
    account,
    body: session.request,
    declineRequested: decline,
  });
  session.transactionId = txn.transactionId;
  gw.store.sessionChanged(session);
}

/**
 * The issuer page (`GET` or `POST /issuer/<token>`): the shopper's choice (`action=pay|decline`) completes the
 * payment; without a choice the page offers both (or, per configuration, completes at once).
 */
export function issuerPage(gw: Gateway, token: string, form: Record<string, unknown>): Reply {
  const session = liveSession(gw, token);
  if (session?.kind !== 'apm') return errorReply(gw, 'unknownRecord', 'authoriseApm', form, undefined, 'html');
  const mode = gw.config.apm.issuer.mode;
  const action =
    form.action === 'pay' || form.action === 'decline'
      ? form.action
      : mode === 'autoApprove'
        ? 'pay'
        : mode === 'autoDecline'
          ? 'decline'
          : undefined;
  if (!session.transactionId && action) complete(gw, session, action === 'decline');
  if (session.transactionId) return resultPage(gw, session);
  const req = session.request;
  return pageReply({
    title: 'Issuer payment page',
    autoSubmit: false,
    paragraphs: [
      {
        id: 'order',
        text: `Order ${String(req.order_no)}: ${String(req.amount)} ${String(req.currency)} by ${String(req.payment_method)}`,
      },
    ],
    form: {
      name: 'issuer',
      method: 'POST',
      action: `${gw.baseUrl}${ISSUER_PATH}${token}`,
      inputs: [],
      buttons: [
        { name: 'action', value: 'pay', label: 'Pay' },
        { name: 'action', value: 'decline', label: 'Decline' },
      ],
    },
  });
}
