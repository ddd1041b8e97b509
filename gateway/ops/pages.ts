/** Pages shared by the issuer page and the hosted payment page. */
import { codeMessage } from '../errors.js';
import type { Gateway } from '../context.js';
import { pageReply, type Reply } from '../reply.js';
import type { Session } from '../store.js';

/** The result page of a completed session (shown again, unchanged, on every later request). */
export function resultPage(gw: Gateway, session: Session): Reply {
  const txn = session.transactionId ? gw.store.transactions.get(session.transactionId) : undefined;
  if (!txn) throw new Error('gateway: result page of a session without payment');
  return pageReply({
    title: txn.outcome === 'declined' ? 'Payment declined' : 'Payment completed',
    autoSubmit: false,
    paragraphs: [
      { id: 'order', text: `Order ${txn.orderNo}: ${txn.amount} ${txn.currency}` },
      { id: 'transaction', text: txn.transactionId },
      { id: 'result', text: codeMessage(gw.profile.payments.resultInfo[txn.outcome]) },
    ],
  });
}
