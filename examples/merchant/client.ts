/**
 * A small merchant client of the interface, as a merchant writes one against the reference profile: a direct card
 * payment, a capture, a partial refund, a query, a refund search and a payout, each signed as the profile says
 * (SHA-256 over the listed values with the secret appended), in the media type the profile reads, its answer parsed
 * (XML for the payment, JSON otherwise). `Mistakes` turns on one of the errors merchants make, so the tests can show
 * what `pagi-conform proxy` says of each (examples/merchant/merchant.test.ts).
 */
import { createHash, randomUUID } from 'node:crypto';

/** The merchant's account at the gateway; `baseUrl` is the gateway's, or the proxy's in front of it. */
export interface MerchantAccount {
  baseUrl: string;
  merchantId: string;
  accountId: string;
  secret: string;
}

/** Errors a merchant makes, one at a time. */
export interface Mistakes {
  /** Sign a payment over merchant_id and account_id only (the profile also signs order_no, currency and amount). */
  signatureOverWrongFields?: boolean;
  /** Send amounts in the form `10.5` (the interface's form has two fractional digits: `10.50`). */
  amountWithOneDecimal?: boolean;
  /** Send a capture as form fields (the profile reads captures as JSON only, where it accepts no other type). */
  formBody?: boolean;
}

/** A payment the gateway answered. */
export interface Payment {
  transactionId: string;
  orderNo: string;
  currency: string;
  amount: string;
  orderStatus: string;
}

/** A gateway answer read: status and body (JSON fields, or the XML's elements). */
export interface Answer {
  status: number;
  fields: Record<string, unknown>;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The elements of a flat XML document (`<respon><a>1</a>…</respon>`), enough for the payment answer. */
function xmlFields(xml: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of xml.matchAll(/<([a-z_]+)>([^<]*)<\/\1>/g)) out[m[1]!] = m[2]!;
  return out;
}

/** The merchant client. */
export class Merchant {
  constructor(
    readonly account: MerchantAccount,
    readonly mistakes: Mistakes = {},
  ) {}

  /** The signature of a request over `values`, as the reference profile builds it. */
  private sign(values: readonly unknown[]): string {
    return sha256(values.map((v) => (v === undefined ? '' : String(v))).join('') + this.account.secret);
  }

  private amount(value: string): string {
    return this.mistakes.amountWithOneDecimal ? value.replace(/^(\d+\.\d)0$/, '$1') : value;
  }

  private async post(path: string, body: Record<string, unknown>, form = false): Promise<Answer> {
    const response = await fetch(`${this.account.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'content-type': form ? 'application/x-www-form-urlencoded; charset=utf-8' : 'application/json; charset=utf-8',
      },
      body: form
        ? new URLSearchParams(
            Object.entries(body).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)]),
          ).toString()
        : JSON.stringify(body),
    });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    let fields: Record<string, unknown> = {};
    if (/xml/.test(type)) fields = xmlFields(text);
    else if (/json/.test(type)) fields = JSON.parse(text) as Record<string, unknown>;
    return { status: response.status, fields };
  }

  private ids(): { merchant_id: string; account_id: string } {
    return { merchant_id: this.account.merchantId, account_id: this.account.accountId };
  }

  /** A direct card payment of `amount` (`10.50`) for order `orderNo`; notifications go to `notifyUrl`. */
  async pay(orderNo: string, amount: string, notifyUrl: string, currency = 'USD'): Promise<Payment> {
    const sent = this.amount(amount);
    const signed = this.mistakes.signatureOverWrongFields
      ? [this.account.merchantId, this.account.accountId]
      : [this.account.merchantId, this.account.accountId, orderNo, currency, sent];
    const answer = await this.post('/v1/authorise', {
      ...this.ids(),
      encryption_data: this.sign(signed),
      order_no: orderNo,
      currency,
      amount: sent,
      notify_url: notifyUrl,
      card_number: '4111111111111111',
      expiration_month: '12',
      expiration_year: '2030',
      security_code: '123',
      first_name: 'Alice',
      last_name: 'Moreau',
      shopper_email: 'alice.moreau@example.com',
    });
    const f = answer.fields;
    return {
      transactionId: String(f.transaction_id ?? ''),
      orderNo,
      currency,
      amount,
      orderStatus: String(f.order_status ?? `HTTP ${answer.status}`),
    };
  }

  /** Capture payments (each whole). */
  capture(payments: readonly Payment[]): Promise<Answer> {
    const body = {
      ...this.ids(),
      encryption_data: this.sign([this.account.merchantId, this.account.accountId]),
      capture_orders: payments.map((p) => ({
        transaction_id: p.transactionId,
        order_no: p.orderNo,
        currency: p.currency,
        amount: this.amount(p.amount),
      })),
    };
    return this.post('/v1/capture', body, this.mistakes.formBody);
  }

  /** Refund part of a captured payment. */
  refund(payment: Payment, refundAmount: string, reason: string): Promise<Answer> {
    return this.post('/v1/refund', {
      ...this.ids(),
      encryption_data: this.sign([this.account.merchantId, this.account.accountId]),
      refund_orders: [
        {
          transaction_id: payment.transactionId,
          order_no: payment.orderNo,
          currency: payment.currency,
          amount: this.amount(payment.amount),
          refund_amount: this.amount(refundAmount),
          refund_reason: reason,
        },
      ],
    });
  }

  /** Query payments by order number (form fields, as the profile reads the query). */
  query(payments: readonly Payment[]): Promise<Answer> {
    return this.post(
      '/v1/retrievalTrans',
      {
        ...this.ids(),
        encryption_data: this.sign([this.account.merchantId, this.account.accountId]),
        order_no: payments.map((p) => p.orderNo).join(','),
      },
      true,
    );
  }

  /** Search the refunds of payments (form fields, as the profile reads the refund search). */
  refundSearch(payments: readonly Payment[]): Promise<Answer> {
    return this.post(
      '/v1/retrievalRefund',
      {
        ...this.ids(),
        encryption_data: this.sign([this.account.merchantId, this.account.accountId]),
        transaction_id: payments.map((p) => p.transactionId).join(','),
      },
      true,
    );
  }

  /** A payout of `amount` (whole units, as payout requests send them) to a beneficiary. */
  payout(amount: string, currency: string, notifyUrl: string): Promise<Answer> {
    const requestId = randomUUID();
    return this.post('/v1/payout', {
      ...this.ids(),
      encryption_data: this.sign([this.account.merchantId, this.account.accountId, requestId, amount, currency]),
      request_id: requestId,
      beneficiary_id: 'BEN-000042',
      fee_paid_by: 'PAYER',
      payment_amount: amount,
      payment_currency: currency,
      source_currency: currency,
      payment_date: new Date().toISOString().slice(0, 10),
      payment_method: 'SWIFT',
      reason: 'Supplier invoice settlement',
      notify_url: notifyUrl,
    });
  }
}
