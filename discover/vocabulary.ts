/**
 * The short lists discovery tries, as the profile format documents them (spec/profiles/README.md, "What discovery
 * tries"): common request field names for the card, conventional test triggers, header names. A gateway using a
 * name or trigger outside these lists is not found: its point stays UNKNOWN in the draft.
 */

/** Common names of the direct payment's card fields, most common first (`fields.card`). */
export const COMMON_CARD_FIELD_NAMES = {
  number: ['card_number', 'card_no', 'pan', 'card_num', 'cardNumber', 'card_pan', 'number'],
  expiryMonth: [
    'expiration_month',
    'card_exp_month',
    'exp_month',
    'card_month',
    'expiry_month',
    'card_expiry_month',
    'expMonth',
  ],
  expiryYear: [
    'expiration_year',
    'card_exp_year',
    'exp_year',
    'card_year',
    'expiry_year',
    'card_expiry_year',
    'expYear',
  ],
  securityCode: ['security_code', 'card_cvv', 'cvc', 'card_code', 'cvv', 'cvv2', 'card_cvc', 'cvc2'],
} as const;

/**
 * A field name in the other naming conventions: snake_case, camelCase, PascalCase, UPPER_CASE, and its last word
 * (`card_cvv`: `cardCvv`, `CardCvv`, `CARD_CVV`, `cvv`). A gateway's own name is often a common one written in
 * another convention, or without its prefix.
 */
export function spellings(name: string): string[] {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/_+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
  const cap = (w: string) => w[0]!.toUpperCase() + w.slice(1);
  const camel = words.map((w, i) => (i ? cap(w) : w)).join('');
  return [words.join('_'), camel, words.map(cap).join(''), words.join('_').toUpperCase(), words.at(-1)!].filter(
    (n) => n !== name,
  );
}

/**
 * The card field names discovery tries per group: the common names first, then each one's other spellings
 * (`spellings`), each once. The search sends them all at once and halves each group down to the gateway's name.
 */
export const CARD_FIELD_CANDIDATES = Object.fromEntries(
  Object.entries(COMMON_CARD_FIELD_NAMES).map(([group, names]) => [
    group,
    [...new Set([...names, ...names.flatMap(spellings)])],
  ]),
) as unknown as { readonly [G in keyof typeof COMMON_CARD_FIELD_NAMES]: readonly string[] };

/** Luhn-valid test card numbers tried for an approving payment, in order. */
export const APPROVE_CARDS = ['4111111111111111', '4242424242424242', '5555555555554444', '4012888888881881'];

/** Luhn-valid test card numbers tried for a declining payment (conventional decline test numbers). */
export const DECLINE_CARDS = [
  '4000000000000002',
  '4000000000000010',
  '4000000000000069',
  '4000000000000119',
  '4000000000009995',
  '4000000000000127',
  '5105105105105100',
];

/** Security codes tried as decline triggers. */
export const DECLINE_SECURITY_CODES = ['999', '000', '111', '901'];

/** E-mail domains tried as decline or review triggers (`@<domain>`). */
export const TRIGGER_EMAIL_DOMAINS = [
  'decline.example',
  'declined.example',
  'fraud.example',
  'review.example',
  'hold.example',
  'challenge.example',
];

/** Amounts tried as decline triggers. */
export const DECLINE_AMOUNTS = ['13.13', '0.05', '5.51', '66.66', '99.99', '666.00'];

/** Values tried as the `review_flag` that rejects a held payment (the document shows `1`, which approves). */
export const REVIEW_REJECT_FLAGS = ['0', '2', '3', '9', '4', '-1'];

/** `token_flag` values tried as the one asking for a token (the document shows `NO`, not asking). */
export const TOKEN_REQUEST_VALUES = ['YES', 'Y', 'TOKENIZE', 'SAVE', '1', 'TRUE', 'true'];

/** `fee_paid_by` pairs tried (payer, beneficiary); the document shows `PAYER`. */
export const FEE_PAID_BY_PAIRS: readonly [string, string][] = [
  ['PAYER', 'BENEFICIARY'],
  ['SENDER', 'RECEIVER'],
  ['OUR', 'BEN'],
  ['PAYER_PAYS', 'PAYEE_PAYS'],
  ['PAYER', 'PAYEE'],
  ['SHA', 'BEN'],
  ['OURS', 'THEIRS'],
];

/** Header names tried when every request is refused whatever its signature (value: the merchant or account id). */
export const HEADER_CANDIDATES: readonly [string, string][] = [
  ['X-Merchant-Id', '{request.merchant_id}'],
  ['X-Account-Id', '{request.account_id}'],
  ['Merchant-Id', '{request.merchant_id}'],
  ['X-Merchant-ID', '{request.merchant_id}'],
];

/** Amount at which discovery looks for a review hold; a threshold above it is not found. */
export const REVIEW_SEARCH_MAX = '1000000.00';

/**
 * Payout failure triggers tried (`payout.failureRules`): a request field of the payout and a value of the gateway's
 * test data that makes a payout fail, as sandboxes conventionally document them. A value ending in `-` is tried as
 * a prefix (a fresh suffix after it); any other value is sent as it is, then with a letter added, which tells an
 * `equals` rule from a `prefix` one.
 */
export const PAYOUT_FAILURE_TRIALS: readonly { field: string; value: string }[] = [
  { field: 'beneficiary.last_name', value: 'FAIL' },
  { field: 'beneficiary.last_name', value: 'FAILED' },
  { field: 'beneficiary.last_name', value: 'BLOCKED' },
  { field: 'beneficiary.last_name', value: 'REJECT' },
  { field: 'beneficiary.company_name', value: 'REJECT' },
  { field: 'beneficiary_id', value: 'fail-' },
  { field: 'beneficiary_id', value: 'closed-' },
  { field: 'beneficiary_id', value: 'blocked-' },
  { field: 'beneficiary.bank_details.account_number', value: '00000000' },
];
