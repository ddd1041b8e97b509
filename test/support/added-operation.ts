/**
 * An operation added to a copy of the spec as a vendor who has it would describe it: `/v1/cancelSubscription`, which
 * the interface document lists with its shapes "not shown" (a subscription reference in; the envelope of
 * `merchant_id`, `account_id`, `return_status`, `return_message`, `encryption_data` out). Its path, operationId,
 * variant, schemas, `x-pagi-*` entries and examples are data only: no code of the kit names it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseYamlText } from '../../core/yaml.js';
import { stringify } from 'yaml';
import { specCopy } from './temp.js';

const BASE = 'https://pagi-conformance.dev/schemas/';

/** The request: the identifiers every request carries and the subscription's `recurring_id`. */
const REQUEST_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: `${BASE}cancel-subscription-request.schema.json`,
  title: 'Cancel subscription request',
  description: 'JSON body of POST /v1/cancelSubscription: the subscription a merchant cancels, by its recurring_id.',
  type: 'object',
  'x-requirement': 'PAGI-GEN-003',
  properties: {
    merchant_id: { $ref: 'common.schema.json#/$defs/merchantId' },
    account_id: { $ref: 'common.schema.json#/$defs/accountId' },
    encryption_data: { $ref: 'common.schema.json#/$defs/encryptionData' },
    recurring_id: { $ref: 'common.schema.json#/$defs/text', description: 'The subscription cancelled.' },
  },
  allOf: [
    {
      type: 'object',
      required: ['merchant_id', 'account_id'],
      properties: { merchant_id: true, account_id: true },
      'x-requirement': 'PAGI-GEN-003',
    },
    {
      type: 'object',
      required: ['encryption_data'],
      properties: { encryption_data: true },
      'x-requirement': 'PAGI-AUTH-001',
    },
    { type: 'object', required: ['recurring_id'], properties: { recurring_id: true }, 'x-requirement': 'PAGI-GEN-006' },
  ],
};

/** The operation's entry under `paths` (the response is the batch envelope without an order array). */
function pathEntry(requirements: string[]) {
  return {
    post: {
      operationId: 'cancelSubscription',
      tags: ['transactions'],
      summary: 'Cancel a subscription',
      'x-pagi-variants': [
        {
          key: 'cancelSubscription',
          request: '#/components/schemas/CancelSubscriptionRequest',
          response: '#/components/schemas/CancelSubscriptionResponse',
          echo: [{ fields: ['merchant_id', 'account_id'], requirement: 'PAGI-GEN-005', integrity: 'PAGI-INV-006' }],
          requirements,
        },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            'x-pagi-media': 'examples',
            schema: { $ref: '#/components/schemas/CancelSubscriptionRequest' },
            examples: { cancel: { $ref: 'examples/cancel-subscription-request.yaml' } },
          },
          'application/x-www-form-urlencoded': {
            'x-pagi-media': 'declared',
            schema: { $ref: '#/components/schemas/CancelSubscriptionRequest' },
          },
        },
      },
      responses: {
        '200': {
          description: 'The envelope reporting the outcome.',
          content: {
            'application/json': {
              'x-pagi-media': 'conventional',
              schema: { $ref: '#/components/schemas/CancelSubscriptionResponse' },
              examples: { cancelled: { $ref: 'examples/cancel-subscription-response.yaml' } },
            },
          },
        },
      },
    },
  };
}

const REQUEST_EXAMPLE = {
  summary: 'Cancel one subscription',
  value: {
    merchant_id: 'M10001',
    account_id: 'A20001',
    recurring_id: 'R-20261122-0001',
    encryption_data: '5f0c8a1d2e3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5',
  },
};

const RESPONSE_EXAMPLE = {
  summary: 'Subscription cancelled',
  value: {
    merchant_id: 'M10001',
    account_id: 'A20001',
    return_status: '1',
    return_message: 'OK',
    encryption_data: '0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9',
  },
};

/** The requirement ids the added operation's generic checks trace to: those of `/v1/cancel` but its batch rules. */
function genericRequirements(openapi: any): string[] {
  const cancel = openapi.paths['/v1/cancel'].post['x-pagi-variants'][0].requirements as string[];
  return cancel.filter((id) => !/^PAGI-(BAT|CNL|LIM|QRY)-/.test(id));
}

/**
 * A copy of the kit's spec/ and schemas/ with `/v1/cancelSubscription` added (schemas, examples, path, components);
 * removed after the calling file's tests.
 */
export function specWithCancelSubscription(): string {
  return specCopy((root) => {
    const file = path.join(root, 'spec', 'openapi.yaml');
    const openapi = parseYamlText(fs.readFileSync(file, 'utf8')) as any;
    openapi.paths['/v1/cancelSubscription'] = pathEntry(genericRequirements(openapi));
    openapi.components.schemas.CancelSubscriptionRequest = {
      $ref: '../schemas/cancel-subscription-request.schema.json',
    };
    openapi.components.schemas.CancelSubscriptionResponse = { $ref: '../schemas/batch-response-envelope.schema.json' };
    // The operation is now described: it leaves the list of operations whose shapes are not shown.
    openapi['x-pagi'].notShownOperations = openapi['x-pagi'].notShownOperations.filter(
      (o: { name: string }) => o.name !== 'Cancel a subscription',
    );
    fs.writeFileSync(file, stringify(openapi, { lineWidth: 0 }));
    fs.writeFileSync(
      path.join(root, 'schemas', 'cancel-subscription-request.schema.json'),
      JSON.stringify(REQUEST_SCHEMA, null, 2),
    );
    for (const [name, value] of [
      ['cancel-subscription-request.yaml', REQUEST_EXAMPLE],
      ['cancel-subscription-response.yaml', RESPONSE_EXAMPLE],
    ] as const)
      fs.writeFileSync(path.join(root, 'spec', 'examples', name), stringify(value));
  });
}

/**
 * A copy of the kit's spec with an existing operation's entry copied under a new path and operation name (`key`):
 * the same schemas, `x-pagi-*` entries and examples, then `edit` applied to the copied entry.
 */
export function specWithCopiedOperation(
  from: string,
  newPath: string,
  key: string,
  edit: (entry: { post: Record<string, any> }) => void = () => {},
): string {
  return specCopy((root) => {
    const file = path.join(root, 'spec', 'openapi.yaml');
    const openapi = parseYamlText(fs.readFileSync(file, 'utf8')) as any;
    const entry = structuredClone(openapi.paths[from]);
    entry.post.operationId = key;
    const variants = entry.post['x-pagi-variants'] as { key: string }[];
    if (variants.length !== 1) throw new Error(`${from} has several variants`);
    variants[0]!.key = key;
    edit(entry);
    openapi.paths[newPath] = entry;
    fs.writeFileSync(file, stringify(openapi, { lineWidth: 0 }));
  });
}
