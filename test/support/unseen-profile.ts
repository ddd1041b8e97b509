/**
 * A gateway the kit's authors never saw: the reference gateway running a profile that differs from every shipped one
 * in choices the document leaves open (test/engine/unseen-gateway.test.ts runs it with its profile;
 * test/discover/proof.test.ts discovers it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { SPEC_DIR } from '../../core/spec/paths.js';

/** The reference profile with the unseen vendor's choices. */
export function unseenProfile(dir: string): string {
  const p = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  p.name = 'unseen-vendor';
  p.description = 'A vendor the kit was not written against: its choices differ where the document is silent.';
  // The currency is compared with the payment's before the item's form is checked (batch.checkOrder).
  p.batch.checkOrder = [
    'currencyMismatch',
    'invalidItem',
    'unknownTransaction',
    'amountMismatch',
    'state',
    'overAmount',
  ];
  // Every answer signed over sorted pairs, the query and APM answers included; error bodies signed, but the checkout
  // errs in an HTML page, which has no field for a signature.
  p.signature.response = {
    signed: true,
    pairs: {
      mode: 'sortedPairs',
      keyValueSeparator: '=',
      pairSeparator: '&',
      skipEmpty: true,
      exclude: ['encryption_data'],
      valueEncoding: 'raw',
    },
  };
  p.errors.signed = true;
  if (p.errors.formatByOperation.checkout !== 'html') throw new Error('the reference checkout no longer errs in HTML');
  // Only the whole remaining amount is refunded; a smaller refund fails as another amount.
  p.refunds.partial = 'amountMismatch';
  const file = path.join(dir, 'unseen-vendor.yaml');
  fs.writeFileSync(file, stringify(p));
  return file;
}
