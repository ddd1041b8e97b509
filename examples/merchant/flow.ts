/**
 * The merchant's whole integration in one go: a payment, its capture, a query, a partial refund, a refund search
 * and a payout, each answer checked the way a merchant's code would (the HTTP status).
 */
import type { Merchant, Payment } from './client.js';

/** Run the integration once; the payment made. */
export async function integration(merchant: Merchant, notifyUrl: string, orderNo: string): Promise<Payment> {
  const payment = await merchant.pay(orderNo, '25.00', notifyUrl);
  await merchant.capture([payment]);
  await merchant.query([payment]);
  await merchant.refund(payment, '5.00', 'one item returned');
  await merchant.refundSearch([payment]);
  await merchant.payout('1000', 'EUR', notifyUrl);
  return payment;
}
