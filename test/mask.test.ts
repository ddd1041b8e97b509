import { describe, expect, it } from 'vitest';
import {
  guardStandardStreams,
  holdsSecret,
  maskEchoedHeaders,
  maskEchoedValues,
  maskOutgoing,
  maskOutgoingValue,
  noteSentCardValues,
  maskPan,
  maskText,
  maskValue,
  protectOutput,
} from '../core/mask.js';

const PAN = '4111111111111111';
const SECRET = 'k3y&v@l"ue 9';

describe('masking', () => {
  it('keeps at most the first six and last four digits of a card number', () => {
    expect(maskPan(PAN)).toBe('411111******1111');
    expect(maskText(`card ${PAN} and 4111 1111 1111 1111 and 4111-1111-1111-1111 and 4111+1111+1111+1111`)).not.toMatch(
      /\d{7,}|\d{4}[ +-]\d{4}[ +-]\d{4}/,
    );
  });

  it('does not touch short numbers (amounts, dates, ids)', () => {
    expect(maskText('amount=10.36&date=20261122143015&id=T202611220001')).toBe(
      'amount=10.36&date=20261122143015&id=T202611220001',
    );
  });

  it('replaces a secret in every written form', () => {
    const forms = [
      SECRET,
      encodeURIComponent(SECRET),
      encodeURIComponent(SECRET).replace(/%20/g, '+'),
      JSON.stringify(SECRET).slice(1, -1),
    ];
    for (const form of forms) expect(maskText(`x ${form} y`, { secrets: [SECRET] })).toBe('x [SECRET] y');
  });

  it('replaces security codes by field name in JSON, form and XML', () => {
    expect(maskText('{"security_code":"123","cvv": 456}')).toBe('{"security_code":"***","cvv": "***"}');
    expect(maskText('a=1&security_code=123&b=2')).toBe('a=1&security_code=***&b=2');
    expect(maskText('<security_code>123</security_code>')).toBe('<security_code>***</security_code>');
    expect(maskValue({ card_number: PAN, nested: { security_code: '123', note: `pan ${PAN}` } })).toEqual({
      card_number: '***',
      nested: { security_code: '***', note: 'pan 411111******1111' },
    });
  });

  it('masks card numbers written with dots or underscores, and known cards with any separator', () => {
    expect(maskText(`a 4111.1111.1111.1111 b 4111_1111_1111_1111 c`)).toBe('a 411111******1111 b 411111******1111 c');
    // A known card that is not Luhn-valid is masked by the rules, with separators too.
    expect(maskText('card 4000-0000-0000-0003 and 4000.0000.0000.0003', { cards: ['4000000000000003'] })).toBe(
      'card 400000******0003 and 400000******0003',
    );
    expect(maskText('amount 10.36 id 1234.5678 ip 127.0.0.1')).toBe('amount 10.36 id 1234.5678 ip 127.0.0.1');
    expect(maskText(`run 9${PAN}77`, { cards: [PAN] })).toBe('run 9411111******111177');
  });

  it('masks a card number given as a JSON number (a finding keeps received values as data), and leaves other numbers be', () => {
    expect(maskValue({ received: Number(PAN), amount: 1000, list: [Number(PAN)] })).toEqual({
      received: '411111******1111',
      amount: 1000,
      list: ['411111******1111'],
    });
  });

  it('masks secrets and cards in keys and header names, not only in values', () => {
    const rules = { secrets: [SECRET], cards: [PAN] };
    expect(maskValue({ [`x-echo-${SECRET}`]: '1', [`k_${PAN}`]: { [SECRET]: SECRET } }, rules)).toEqual({
      'x-echo-[SECRET]': '1',
      'k_411111******1111': { '[SECRET]': '[SECRET]' },
    });
    expect(holdsSecret(`x ${encodeURIComponent(SECRET)} y`, rules)).toBe(true);
    expect(holdsSecret('nothing here', rules)).toBe(false);
  });

  it("maskOutgoing masks the secrets of the runs under way, and stops once a run's rules are released", () => {
    const secret = 'outgoing-secret-7f3a';
    expect(maskOutgoing(`key ${secret} card ${PAN}`)).toBe(`key ${secret} card 411111******1111`);
    const release = protectOutput({ secrets: [secret] });
    expect(maskOutgoing(`key ${secret}`)).toBe('key [SECRET]');
    expect(maskOutgoingValue({ [secret]: [`a ${secret}`] })).toEqual({ '[SECRET]': ['a [SECRET]'] });
    release();
    expect(maskOutgoing(`key ${secret}`)).toBe(`key ${secret}`);
  });

  it('a guard taken after something replaced a stream (a capture, a library) wraps the replacement too', () => {
    const secret = 'stream-secret-77aa';
    const written: string[] = [];
    const original = process.stdout.write;
    // A guard held from before (a command's process-long guard, in a thread tests share).
    const earlier = guardStandardStreams();
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      const release = protectOutput({ secrets: [secret] });
      const unguard = guardStandardStreams();
      process.stdout.write(`line ${secret}\n`);
      unguard();
      release();
    } finally {
      earlier();
      process.stdout.write = original;
    }
    expect(written).toEqual(['line [SECRET]\n']);
  });

  it('guards stdout and stderr: every write passes through maskOutgoing while a guard is held', () => {
    const secret = 'stream-secret-91bc';
    const written: string[] = [];
    const original = process.stdout.write;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      const release = protectOutput({ secrets: [secret] });
      const unguard = guardStandardStreams();
      const nested = guardStandardStreams();
      process.stdout.write(`line ${secret}\n`);
      process.stdout.write(Buffer.from(`bytes ${PAN}\n`));
      nested();
      process.stdout.write(`still ${secret}\n`);
      unguard();
      release();
      process.stdout.write(`after ${secret}\n`);
    } finally {
      process.stdout.write = original;
    }
    expect(written).toEqual(['line [SECRET]\n', 'bytes 411111******1111\n', 'still [SECRET]\n', `after ${secret}\n`]);
  });
});

describe('masking JSON text', () => {
  it('keeps JSON text valid when a name=value pair ends at an escaped quote', () => {
    const text = JSON.stringify({ message: 'received "security_code=0417" from the target' });
    const masked = maskText(text);
    expect(JSON.parse(masked)).toEqual({ message: 'received "security_code=***" from the target' });
  });
});

describe('masking markup', () => {
  it('masks a name=value pair inside XML text without swallowing the tags after it', () => {
    const masked = maskText('<respon><note>paid with security_code=0417</note><card>x</card></respon>');
    expect(masked).toBe('<respon><note>paid with security_code=***</note><card>x</card></respon>');
  });
});

describe('masking digests', () => {
  it('leaves a digit run inside a hex digest alone (it is no card number)', () => {
    const digest = '0785eb065238f372855a641513ede24b509d7a6a33a4f1516954111111111111111c31d5';
    expect(maskText(digest.replace('4111111111111111', '45320151128336'))).toBe(
      digest.replace('4111111111111111', '45320151128336'),
    );
    expect(maskText('card 4532015112830366 paid')).not.toContain('4532015112830366');
  });
});

describe('card values the kit sent (valid or not)', () => {
  it('a long one (a Luhn-failing number) is masked wherever it appears, in any written form, by every masking', () => {
    const notLuhn = '5500000000000005';
    expect(maskOutgoing(`echo ${notLuhn}`)).toContain(notLuhn); // not a card number by its form: kept until sent
    expect(noteSentCardValues([notLuhn, '12', '2031', '0417', undefined])).toEqual(['12', '2031', '0417']);
    for (const written of [notLuhn, '5500 0000 0000 0005', '5500-0000-0000-0005', '5500.0000.0000.0005'])
      expect(maskOutgoing(`x-echo: ${written}`)).toBe('x-echo: 550000******0005');
    expect(maskText(`<note>${notLuhn}</note>`, {})).toBe('<note>550000******0005</note>');
    expect(maskValue({ [`k${notLuhn}`]: notLuhn })).toEqual({ 'k550000******0005': '550000******0005' });
  });

  it('a short one is masked where the answer holds it as a whole value, and nowhere else', () => {
    const short = ['12', '0417'];
    expect(maskEchoedValues('{"expiry":"12","note":"Dec 12","n":12,"code":"0417","12":"x"}', short)).toBe(
      '{"expiry":"***","note":"Dec 12","n":***,"code":"***","12":"x"}',
    );
    expect(
      maskEchoedValues('<respon><m>12</m><t>2026-12-01</t><c> 0417 </c><amount>112.00</amount></respon>', short),
    ).toBe('<respon><m>***</m><t>2026-12-01</t><c>***</c><amount>112.00</amount></respon>');
    expect(maskEchoedValues('<input name="m" value="12"><input value=\'0417\'>', short)).toBe(
      '<input name="m" value="***"><input value=\'***\'>',
    );
    expect(maskEchoedValues('a=12&b=120&c=0417', short)).toBe('a=***&b=120&c=***');
    expect(maskEchoedHeaders({ 'x-m': ' 12', 'x-date': 'Tue, 12 May', 'x-c': '0417' }, short)).toEqual({
      'x-m': '***',
      'x-date': 'Tue, 12 May',
      'x-c': '***',
    });
    // Not remembered for other text: a status 12 elsewhere stays.
    expect(maskOutgoing('status 12, code 0417 elsewhere')).toBe('status 12, code 0417 elsewhere');
  });

  it("the profile's card fields are masked by name, expiry included", () => {
    const rules = { fields: ['expiration_month', 'expiration_year'] };
    expect(maskText('{"expiration_month":"07","expiration_year":"2031"}', rules)).toBe(
      '{"expiration_month":"***","expiration_year":"***"}',
    );
  });
});
