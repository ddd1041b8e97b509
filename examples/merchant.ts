/**
 * A merchant's own code talking to the gateway (what the example consumer test exercises): a capture of one
 * authorised payment, signed as the reference profile says (sha256 over merchant_id and account_id, the secret
 * appended), and the reading of its answer.
 */
import { createHash } from 'node:crypto';

/** The merchant's account at the gateway. */
export interface MerchantAccount {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  secret: string;
}

/** One payment to capture. */
export interface Payment {
  transactionId: string;
  orderNo: string;
  currency: string;
  amount: string;
}

/** Capture a payment; true when the gateway reports the capture as done. */
export async function capturePayment(
  account: MerchantAccount,
  payment: Payment,
): Promise<{ captured: boolean; message: string }> {
  const signature = createHash('sha256')
    .update(account.merchantId + account.accountId + account.secret)
    .digest('hex');
  const response = await fetch(`${account.baseUrl}/v1/capture`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      merchant_id: account.merchantId,
      account_id: account.accountId,
      encryption_data: signature,
      capture_orders: [
        {
          transaction_id: payment.transactionId,
          order_no: payment.orderNo,
          currency: payment.currency,
          amount: payment.amount,
        },
      ],
    }),
  });
  if (response.status !== 200) throw new Error(`capture answered HTTP ${response.status}`);
  const body = (await response.json()) as {
    return_status: string;
    capture_orders: { transaction_id: string; capture_status: string; error_message: string }[];
  };
  const result = body.capture_orders.find((r) => r.transaction_id === payment.transactionId);
  if (!result) throw new Error('the capture answer holds no result for the payment');
  return { captured: result.capture_status === '1', message: result.error_message };
}

/**
 * Query a payment by its order number (the reference profile's selection field). The body is JSON, as the document's
 * own example requests send it (rule 6); the reference profile accepts JSON and form fields alike.
 */
export async function queryPayments(
  account: MerchantAccount,
  orderNo: string,
): Promise<{ orderNo?: string; paymentStatus?: string }[]> {
  const signature = createHash('sha256')
    .update(account.merchantId + account.accountId + account.secret)
    .digest('hex');
  const body = JSON.stringify({
    merchant_id: account.merchantId,
    account_id: account.accountId,
    encryption_data: signature,
    order_no: orderNo,
  });
  const response = await fetch(`${account.baseUrl}/v1/retrievalTrans`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body,
  });
  if (response.status !== 200) throw new Error(`query answered HTTP ${response.status}: ${await response.text()}`);
  const answer = (await response.json()) as { orders_list: { order_no?: string; payment_status?: string }[] };
  return answer.orders_list.map((o) => ({ orderNo: o.order_no, paymentStatus: o.payment_status }));
}
