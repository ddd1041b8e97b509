// Dredd hooks of bench/dredd.ts: each example request gets the gateway's merchant account (PAGI_MERCHANT_ID,
// PAGI_ACCOUNT_ID) and its encryption_data, signed as the reference profile says (spec/profiles/reference.yaml:
// SHA-256, lower-case hex, over the listed fields' values concatenated with the secret PAGI_SECRET appended).
const { createHash } = require('node:crypto');
const hooks = require('hooks');

/** The reference profile's request field lists, by path. */
const FIELDS = {
  '/v1/authorise': ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  '/v1/checkout': ['merchant_id', 'account_id', 'order_no', 'currency', 'amount'],
  '/v1/payout': ['merchant_id', 'account_id', 'request_id', 'payment_amount', 'payment_currency'],
};
const DEFAULT_FIELDS = ['merchant_id', 'account_id'];

hooks.beforeEach((transaction, done) => {
  const body = JSON.parse(transaction.request.body);
  body.merchant_id = process.env.PAGI_MERCHANT_ID;
  body.account_id = process.env.PAGI_ACCOUNT_ID;
  const fields = FIELDS[transaction.request.uri] ?? DEFAULT_FIELDS;
  const text = fields.map((f) => (body[f] === undefined ? '' : String(body[f]))).join('') + process.env.PAGI_SECRET;
  body.encryption_data = createHash('sha256').update(text).digest('hex');
  transaction.request.body = JSON.stringify(body);
  transaction.request.headers['Content-Length'] = String(Buffer.byteLength(transaction.request.body));
  done();
});
