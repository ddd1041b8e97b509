/** Pages shared by the issuer page and the hosted payment page. */
import { codeMessage, errorReply } from '../errors.js';
import type { Gateway } from '../context.js';
import { pageReply, type Reply } from '../reply.js';
import type { Session } from '../store.js';
import { resultInfoOf } from './payment.js';

/** The result page of a completed session (shown again, unchanged, on every later request). */
export function resultPage(gw: Gateway, session: Session): Reply {
  const txn = session.transactionId ? gw.store.transactionById(session.transactionId) : undefined;
  // Without a database the payment may have been evicted (store caps) while its session lives on: an unknown record.
  if (!txn)
    return errorReply(gw, 'unknownRecord', session.kind === 'apm' ? 'authoriseApm' : 'checkout', {}, undefined, 'html');
  return pageReply({
    title: txn.outcome === 'declined' ? 'Payment declined' : 'Payment completed',
    autoSubmit: false,
    paragraphs: [
      { id: 'order', text: `Order ${txn.orderNo}: ${txn.amount} ${txn.currency}` },
      { id: 'transaction', text: txn.transactionId },
      { id: 'result', text: codeMessage(resultInfoOf(gw, txn)) },
    ],
  });
}
