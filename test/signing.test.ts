import { describe, expect, it } from 'vitest';
import { loadProfile } from '../core/profile/load.js';
import { sign, signedView, stringToSign, verify } from '../core/signing.js';

// Known-answer vectors computed independently of this code, with openssl:
//   printf '%s' 'M10001A20001ORD-1USD10.36s3cr3t' | openssl dgst -sha256
//   printf '%s' 'account_id=A20001&amount=10.36&merchant_id=M10001&note=caf&#233; & more' | openssl dgst -sha256 -hmac s3cr3t
//   printf '%s' 'M10001A20001s3cr3t' | openssl dgst -sha256
const REF_DIRECT = 'cb1f64c5f7ddc55e102eba4b6f464c12ac148cb192566ff0d261b57ebdf73a65';
const HMAC_SORTED_UPPER = 'AB3A899883DD7338104A256BD837DEFEFAA1C331EEC5442FF16E6215B425142B';
const REF_BATCH = '6b19654485bb7c607b0f1cdd39e2368c23c246ea47e30f79823322ffdc8c35c8';

const reference = loadProfile('reference').profile.signature;
const sample = loadProfile('sample-hmac-sorted').profile.signature;

describe('signatures against openssl vectors', () => {
  const direct = {
    merchant_id: 'M10001',
    account_id: 'A20001',
    order_no: 'ORD-1',
    currency: 'USD',
    amount: '10.36',
    note: 'ignored',
  };

  it('reference: SHA-256 over the per-operation field list, secret appended, lower-case hex', () => {
    expect(stringToSign(reference, 'request', 'authoriseDirect', direct)).toBe('M10001A20001ORD-1USD10.36');
    expect(sign(reference, 'request', 'authoriseDirect', direct, 's3cr3t')).toBe(REF_DIRECT);
    expect(
      sign(
        reference,
        'request',
        'capture',
        { merchant_id: 'M10001', account_id: 'A20001', capture_orders: [] },
        's3cr3t',
      ),
    ).toBe(REF_BATCH);
  });

  it('reference: compared case-insensitively; a wrong, missing or other-secret signature fails', () => {
    expect(
      verify(
        reference,
        'request',
        'authoriseDirect',
        { ...direct, encryption_data: REF_DIRECT.toUpperCase() },
        's3cr3t',
      ),
    ).toBe(true);
    expect(verify(reference, 'request', 'authoriseDirect', { ...direct, encryption_data: REF_DIRECT }, 'other')).toBe(
      false,
    );
    expect(
      verify(
        reference,
        'request',
        'authoriseDirect',
        { ...direct, amount: '10.37', encryption_data: REF_DIRECT },
        's3cr3t',
      ),
    ).toBe(false);
    expect(verify(reference, 'request', 'authoriseDirect', direct, 's3cr3t')).toBe(false);
  });

  it('sample: HMAC-SHA256 over sorted top-level scalars, upper-case hex, case-sensitive', () => {
    const body = {
      merchant_id: 'M10001',
      note: 'caf&#233; & more',
      account_id: 'A20001',
      amount: '10.36',
      encryption_data: 'excluded',
      capture_orders: [{ amount: '1.00' }],
    };
    expect(stringToSign(sample, 'request', 'capture', body)).toBe(
      'account_id=A20001&amount=10.36&merchant_id=M10001&note=caf&#233; & more',
    );
    expect(sign(sample, 'request', 'capture', body, 's3cr3t')).toBe(HMAC_SORTED_UPPER);
    expect(
      verify(sample, 'request', 'capture', { ...body, encryption_data: HMAC_SORTED_UPPER.toLowerCase() }, 's3cr3t'),
    ).toBe(false);
  });

  it('responses: signed per the reference lists, over sorted pairs (empty values skipped) in the sample', () => {
    expect(
      stringToSign(reference, 'response', 'capture', {
        merchant_id: 'M',
        account_id: 'A',
        return_status: '1',
        return_message: 'OK',
      }),
    ).toBe('MA1OK');
    // The reference signs the query answer too (its envelope does not list encryption_data; responses carry it).
    expect(stringToSign(reference, 'response', 'retrievalTrans', { merchant_id: 'M' })).toBe('M');
    expect(stringToSign(reference, 'response', 'checkout', { merchant_id: 'M' })).toBeUndefined();
    expect(stringToSign(sample, 'response', 'capture', { merchant_id: 'M', return_message: '', account_id: 'A' })).toBe(
      'account_id=A&merchant_id=M',
    );
  });
});

describe('values whose signing is a profile choice', () => {
  const pairs = loadProfile('sha256-pairs-ownshape').profile.signature;
  const body = { merchant_id: 'M1', flag: true, none: null, n: 7, cart: [{ a: 1 }] };

  it('leaves booleans and nulls out where the profile says (signature.request.leaveOut), counts them otherwise', () => {
    expect(stringToSign(pairs, 'request', 'authoriseDirect', body)).toBe('merchant_id=M1&n=7');
    expect(stringToSign(sample, 'request', 'authoriseDirect', body)).toBe('flag=true&merchant_id=M1&n=7&none=');
    const listed = {
      ...reference,
      request: { ...reference.request, fields: { authoriseDirect: ['merchant_id', 'flag', 'none'] } },
    };
    expect(stringToSign(listed as typeof reference, 'request', 'authoriseDirect', body)).toBe('M1true');
    const leaving = { ...listed, request: { ...listed.request, leaveOut: ['boolean' as const] } };
    expect(stringToSign(leaving as typeof reference, 'request', 'authoriseDirect', body)).toBe('M1');
  });

  it('signs a form body as it is read: text values, no nulls, nested values decoded or as their JSON text', () => {
    expect(signedView(body, 'json')).toBe(body);
    expect(signedView(body, 'form')).toEqual({ merchant_id: 'M1', flag: 'true', n: '7', cart: [{ a: 1 }] });
    expect(signedView(body, 'form', 'text')).toEqual({ merchant_id: 'M1', flag: 'true', n: '7', cart: '[{"a":1}]' });
    // A form carries text only: the boolean, now text, is signed; the nested value too once kept as text.
    expect(stringToSign(pairs, 'request', 'authoriseDirect', signedView(body, 'form', 'text'))).toBe(
      `cart=${encodeURIComponent('[{"a":1}]')}&flag=true&merchant_id=M1&n=7`,
    );
  });
});
