/** Faults of the media family: XML, content types, the checkout page. */
import {
  type Body,
  succeeded,
  type FaultDefinition,
  checkoutForm,
  checkoutInputs,
  checkoutPage,
  contentType,
  text,
} from './fault-hooks.js';

/** The variants of this file: media: XML, content types, the checkout page. */
export const MEDIA_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'xml-root-wrong',
    description: 'XML payment responses use the root element <response> instead of <respon>.',
    requirement: 'PAGI-MED-006',
    expectedCheck: 'xmlRootIsRespon',
    reply: (reply) => (reply.kind === 'xml' && reply.root === 'respon' ? { ...reply, root: 'response' } : reply),
  },
  {
    kind: 'fault',
    name: 'xml-unclosed-root',
    description: 'XML responses end without the closing tag of their root element (not well-formed).',
    requirement: 'PAGI-MED-006',
    expectedCheck: 'responseBodyFormat',
    wire: text('application/xml', (xml) => xml.replace(/<\/[A-Za-z_][\w.-]*>\s*$/, '')),
  },
  {
    kind: 'fault',
    name: 'xml-content-type-json',
    description: 'XML responses declare Content-Type application/json.',
    requirement: 'PAGI-MED-009',
    expectedCheck: 'responseContentTypeConventional',
    wire: contentType('application/xml', 'application/json; charset=utf-8'),
  },
  {
    kind: 'fault',
    name: 'json-content-type-text',
    description: 'JSON responses declare Content-Type text/plain.',
    requirement: 'PAGI-MED-009',
    expectedCheck: 'responseContentTypeConventional',
    wire: contentType('application/json', 'text/plain; charset=utf-8'),
  },
  {
    kind: 'fault',
    name: 'refund-response-form-encoded',
    description: 'Refund responses are form-encoded text instead of JSON.',
    requirement: 'PAGI-MED-008',
    expectedCheck: 'responseBodyFormat',
    wire: (wire, ctx) =>
      succeeded(ctx, ['refund']) && wire.headers['content-type']?.startsWith('application/json')
        ? {
            ...wire,
            headers: { ...wire.headers, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
            body: new URLSearchParams(
              Object.entries(JSON.parse(wire.body) as Body).map(([k, v]) => [
                k,
                typeof v === 'string' ? v : JSON.stringify(v),
              ]),
            ).toString(),
          }
        : wire,
  },
  {
    kind: 'fault',
    name: 'checkout-empty-page',
    description:
      'The hosted checkout is answered with an empty body and a Location header instead of the auto-submitting HTML page.',
    requirement: 'PAGI-MED-007',
    expectedCheck: 'responseBodyFormat',
    wire: (wire, ctx) =>
      succeeded(ctx, ['checkout']) && /<body onload=/.test(wire.body)
        ? { ...wire, headers: { ...wire.headers, location: /action="([^"]*)"/.exec(wire.body)?.[1] ?? '' }, body: '' }
        : wire,
  },
  {
    kind: 'fault',
    name: 'checkout-requires-card',
    description: 'A hosted checkout without the direct-only card field is refused as invalid input.',
    requirement: 'PAGI-CHK-001',
    expectedCheck: 'checkoutNeedsNoDirectOnlyField',
    refuse: (op, b) => (op === 'checkout' && b.card === undefined ? 'card is missing' : undefined),
  },
  {
    kind: 'fault',
    name: 'checkout-method-get',
    description: 'The hosted checkout page submits its form with method GET instead of POST.',
    requirement: 'PAGI-CHK-002',
    expectedCheck: 'checkoutFormPostsToBaseUrl',
    reply: checkoutForm((form) => ({ ...form, method: 'GET' })),
  },
  {
    kind: 'fault',
    name: 'checkout-action-unversioned',
    description: 'The checkout form posts to {base_url}/checkout, without the /v1 of the documented action.',
    requirement: 'PAGI-CHK-003',
    expectedCheck: 'checkoutFormPostsToBaseUrl',
    reply: checkoutForm((form) => ({ ...form, action: form.action.replace('/v1/', '/') })),
  },
  {
    kind: 'fault',
    name: 'checkout-no-auto-submit',
    description: 'The checkout page waits for the shopper to press a button instead of submitting the form on load.',
    requirement: 'PAGI-CHK-004',
    expectedCheck: 'checkoutFormSubmitsOnLoad',
    reply: checkoutPage((page) => ({
      ...page,
      autoSubmit: false,
      form: { ...page.form, buttons: [{ name: 'continue', value: '1', label: 'Continue' }] },
    })),
  },
  {
    kind: 'fault',
    name: 'checkout-field-not-hidden',
    description: 'The checkout form carries the submitted order_no in a visible text input instead of a hidden one.',
    requirement: 'PAGI-CHK-005',
    expectedCheck: 'checkoutFormEchoesSubmittedFields',
    reply: checkoutInputs((inputs) => inputs.map((i) => (i.name === 'order_no' ? { ...i, type: 'text' } : i))),
  },
  {
    kind: 'fault',
    name: 'checkout-drops-alias',
    description: 'The checkout form leaves out the first alias the document lists.',
    requirement: 'PAGI-CHK-006',
    expectedCheck: 'checkoutFormHasEveryAlias',
    reply: checkoutInputs((inputs, ctx) => inputs.filter((i) => i.name !== ctx.op?.checkoutForm?.aliasNames[0])),
  },
  {
    kind: 'fault',
    name: 'checkout-alias-amount-in-cents',
    description:
      'The checkout form writes the alias standing for amount (orderAmount in the reference profile) in minor units (1036 for 10.36).',
    requirement: 'PAGI-CHK-007',
    expectedCheck: 'checkoutAliasesEqualSources',
    reply: checkoutInputs((inputs, ctx) => {
      const alias = Object.entries(ctx.profile.checkout.aliases).find(([, source]) => source === 'amount')?.[0];
      return inputs.map((i) => (i.name === alias ? { ...i, value: i.value.replace('.', '') } : i));
    }),
  },
  {
    kind: 'fault',
    name: 'checkout-all-params-drops-field',
    description: 'The checkout form’s allParams leaves out the first submitted parameter.',
    requirement: 'PAGI-CHK-008',
    expectedCheck: 'checkoutAllParamsMatchSubmitted',
    reply: checkoutInputs((inputs, ctx) =>
      inputs.map((i) =>
        i.name === ctx.op?.checkoutForm?.allParamsName ? { ...i, value: i.value.split('&').slice(1).join('&') } : i,
      ),
    ),
  },
  {
    kind: 'fault',
    name: 'checkout-drops-gateway-field',
    description: 'The checkout form leaves out the last gateway-added field the document lists.',
    requirement: 'PAGI-CHK-009',
    expectedCheck: 'checkoutFormHasGatewayFields',
    reply: checkoutInputs((inputs, ctx) => inputs.filter((i) => i.name !== ctx.op?.checkoutForm?.gatewayFields.at(-1))),
  },
  {
    kind: 'fault',
    name: 'checkout-input-repeated',
    description:
      'The checkout form writes the note input twice, the second holding another value (a reader keeping the first sees the sent note).',
    requirement: 'PAGI-CHK-012',
    expectedCheck: 'checkoutInputNamesOnce',
    reply: checkoutInputs((inputs) => {
      const note = inputs.find((i) => i.name === 'note');
      return note ? [...inputs, { ...note, value: `${note.value} (copy)` }] : inputs;
    }),
  },
];
