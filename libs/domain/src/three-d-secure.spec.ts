import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CARD_NETWORKS, NON_CARD_METHODS } from './payment.constants.js';
import { resolveThreeDSecure, type RawAuthentication, type ResolveThreeDSecureInput } from './three-d-secure.js';

const full3ds: RawAuthentication = {
  eci: '05',
  source: '3ds',
  version: '2.2.0',
  flow: 'challenge',
  cavv: 'AAABBEg0VhI0VniQEjRWAAAAAAA=',
  dsTransactionId: 'f25084f0-5b16-4c0a-ae5d-b24808a95e4b',
  acsTransactionId: '13c701a3-5a88-4c45-89e9-ef65e50a8bf9',
  threeDSServerTransactionId: '8a880dc0-d2d2-4067-bcb1-b08d1690b26e',
};

const ecommerceVisa = (authentication: unknown): ThreeDSecureResult =>
  resolveThreeDSecure({ type: 'e-commerce', paymentMethod: 'visa', authentication } as ResolveThreeDSecureInput);

type ThreeDSecureResult = ReturnType<typeof resolveThreeDSecure>;

describe('resolveThreeDSecure — the contract example', () => {
  it('keeps eci, source, version and flow of an e-commerce card payment and nothing else', () => {
    expect(ecommerceVisa(full3ds)).toStrictEqual({ eci: '05', source: '3ds', version: '2.2.0', flow: 'challenge' });
  });

  it('returns the keys in the order eci, source, version, flow', () => {
    expect(Object.keys(ecommerceVisa(full3ds)!)).toStrictEqual(['eci', 'source', 'version', 'flow']);
  });

  it.each(CARD_NETWORKS)('applies to every card network: %s', (paymentMethod) => {
    expect(resolveThreeDSecure({ type: 'e-commerce', paymentMethod, authentication: full3ds })).toStrictEqual({
      eci: '05',
      source: '3ds',
      version: '2.2.0',
      flow: 'challenge',
    });
  });
});

describe('rule 1: only e-commerce card payments', () => {
  it.each(NON_CARD_METHODS)('a non-card method gives null even with a full 3-D Secure result: %s', (paymentMethod) => {
    expect(resolveThreeDSecure({ type: 'e-commerce', paymentMethod, authentication: full3ds })).toBeNull();
  });

  it.each(['bank-transfer', 'klarna', 'sepa-direct-debit', 'visa-debit'])(
    'a method outside the known lists is non-card and gives null: %s',
    (paymentMethod) => {
      expect(resolveThreeDSecure({ type: 'e-commerce', paymentMethod, authentication: full3ds })).toBeNull();
    },
  );

  it.each(['pos', 'tap-to-pay'])('a %s payment carrying an ECI gives null', (type) => {
    expect(resolveThreeDSecure({ type, paymentMethod: 'visa', authentication: full3ds })).toBeNull();
    expect(
      resolveThreeDSecure({ type, paymentMethod: 'mastercard', authentication: { eci: '07', source: 'token' } }),
    ).toBeNull();
  });

  it.each([
    ['E-Commerce', 'visa'],
    ['ecommerce', 'visa'],
    ['', 'visa'],
    [undefined, 'visa'],
    ['e-commerce', 'VISA'],
    ['e-commerce', 'Visa '],
    ['e-commerce', 'diners-club'],
    ['e-commerce', ''],
    ['e-commerce', null],
    ['e-commerce', 42],
    ['e-commerce', ['visa']],
  ])('type %p with payment method %p gives null', (type, paymentMethod) => {
    expect(resolveThreeDSecure({ type, paymentMethod, authentication: full3ds })).toBeNull();
  });
});

describe('rule 2: authentication not collected', () => {
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', '05'],
    ['a number', 5],
    ['a list', ['05', '3ds']],
    ['true', true],
  ])('%s gives null', (_label, authentication) => {
    expect(ecommerceVisa(authentication)).toBeNull();
  });

  it('an absent authentication key gives null', () => {
    expect(resolveThreeDSecure({ type: 'e-commerce', paymentMethod: 'visa' })).toBeNull();
  });

  it('junk instead of the input object gives null instead of throwing', () => {
    expect(resolveThreeDSecure(null as unknown as ResolveThreeDSecureInput)).toBeNull();
    expect(resolveThreeDSecure('visa' as unknown as ResolveThreeDSecureInput)).toBeNull();
  });
});

describe('rule 3: ECI', () => {
  it.each([
    ['5', '05'],
    ['05', '05'],
    ['0', '00'],
    ['00', '00'],
    ['1', '01'],
    ['2', '02'],
    ['7', '07'],
    ['99', '99'],
    ['42', '42'],
  ])('the string %p resolves to %p', (eci, expected) => {
    expect(ecommerceVisa({ ...full3ds, eci })?.eci).toBe(expected);
  });

  it.each([
    [5, '05'],
    [0, '00'],
    [2, '02'],
    [7, '07'],
    [10, '10'],
    [99, '99'],
  ])('the number %p resolves to %p', (eci, expected) => {
    expect(ecommerceVisa({ ...full3ds, eci })?.eci).toBe(expected);
  });

  it.each([
    ['empty string', ''],
    ['blank', ' '],
    ['three digits', '123'],
    ['leading zeros beyond two digits', '005'],
    ['letters', 'ab'],
    ['digit and letter', '5a'],
    ['surrounding whitespace', ' 5'],
    ['trailing newline', '05\n'],
    ['sign', '+5'],
    ['negative', '-5'],
    ['decimal', '5.0'],
    ['hex', '0x5'],
    ['non-ASCII digits', '٠٥'],
    ['fullwidth digits', '０５'],
    ['null', null],
    ['undefined', undefined],
    ['number 100', 100],
    ['negative number', -5],
    ['fraction', 5.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['boolean', true],
    ['object', { value: '05' }],
    ['list', ['05']],
    ['bigint', 5n],
  ])('%s gives null', (_label, eci) => {
    expect(ecommerceVisa({ ...full3ds, eci })).toBeNull();
  });

  it('a missing eci gives null', () => {
    expect(ecommerceVisa({ source: '3ds', version: '2.2.0', flow: 'challenge' })).toBeNull();
  });

  it('passes any two digits through, for tokens as well', () => {
    expect(ecommerceVisa({ eci: '07', source: 'token' })).toStrictEqual({
      eci: '07',
      source: 'token',
      version: null,
      flow: null,
    });
  });
});

describe('rule 4: source', () => {
  it.each([
    ['upper case 3DS', '3DS'],
    ['upper case TOKEN', 'TOKEN'],
    ['capitalised Token', 'Token'],
    ['padded', ' 3ds'],
    ['another scheme', 'spc'],
    ['empty', ''],
    ['null', null],
    ['missing', undefined],
    ['number', 3],
    ['object', { source: '3ds' }],
  ])('%s gives null (the comparison is exact)', (_label, source) => {
    expect(ecommerceVisa({ ...full3ds, source })).toBeNull();
  });
});

describe('rule 5: token', () => {
  it('nulls version and flow but keeps the ECI', () => {
    expect(ecommerceVisa({ ...full3ds, source: 'token' })).toStrictEqual({
      eci: '05',
      source: 'token',
      version: null,
      flow: null,
    });
  });

  it('pads a one-digit ECI of a token', () => {
    expect(ecommerceVisa({ eci: 7, source: 'token', version: '2.2.0', flow: 'frictionless' })).toStrictEqual({
      eci: '07',
      source: 'token',
      version: null,
      flow: null,
    });
  });
});

describe('rule 6: 3ds version', () => {
  it.each([
    ['2.2.0', '2.2.0'],
    ['2.1.0', '2.1.0'],
    ['1.0.2', '1.0.2'],
    ['2.2', '2.2.0'],
    ['2', '2.0.0'],
    ['2.3.1.1', '2.3.1'],
    ['2.3.1.1.9', '2.3.1'],
    ['02.02', '2.2.0'],
    ['2.10.0', '2.10.0'],
    ['0.0.0', '0.0.0'],
  ])('%p becomes %p', (version, expected) => {
    expect(ecommerceVisa({ ...full3ds, version })?.version).toBe(expected);
  });

  it.each([
    [2.2, '2.2.0'],
    [2, '2.0.0'],
  ])('the number %p becomes %p', (version, expected) => {
    expect(ecommerceVisa({ ...full3ds, version })?.version).toBe(expected);
  });

  it.each([
    ['2.x'],
    ['abc'],
    [''],
    [' 2.2'],
    ['2.2 '],
    ['v2.2.0'],
    ['2..1'],
    ['.2'],
    ['2.'],
    ['2.3.1.x'],
    ['2,2'],
    ['-2.2'],
    ['２.２'],
    [null],
    [undefined],
    [-2],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [true],
    [{ major: 2 }],
    [[2, 2, 0]],
  ])('%p gives version null but keeps the object', (version) => {
    expect(ecommerceVisa({ ...full3ds, version })).toStrictEqual({
      eci: '05',
      source: '3ds',
      version: null,
      flow: 'challenge',
    });
  });
});

describe('rule 6: 3ds flow', () => {
  it.each([
    ['challenge', 'challenge'],
    ['CHALLENGE', 'challenge'],
    ['Challenge', 'challenge'],
    ['frictionless', 'frictionless'],
    ['Frictionless', 'frictionless'],
    ['FRICTIONLESS', 'frictionless'],
    ['fRiCtIoNlEsS', 'frictionless'],
  ])('%p becomes %p', (flow, expected) => {
    expect(ecommerceVisa({ ...full3ds, flow })?.flow).toBe(expected);
  });

  it.each([
    ['C'],
    ['Y'],
    ['challenged'],
    [' challenge'],
    ['challenge\n'],
    ['friction less'],
    ['decoupled'],
    ['ſrictionless'],
    [''],
    [null],
    [undefined],
    [1],
    [{ flow: 'challenge' }],
  ])('%p gives flow null but keeps the object', (flow) => {
    expect(ecommerceVisa({ ...full3ds, flow })).toStrictEqual({
      eci: '05',
      source: '3ds',
      version: '2.2.0',
      flow: null,
    });
  });
});

describe('rule 7: never a cryptogram or a 3-D Secure id', () => {
  it('drops cavv, the three transaction ids and unknown extra fields', () => {
    const result = ecommerceVisa({ ...full3ds, xid: 'secret-xid', authenticationValue: 'secret-av' });
    const text = JSON.stringify(result);
    for (const secret of [
      full3ds.cavv,
      full3ds.dsTransactionId,
      full3ds.acsTransactionId,
      full3ds.threeDSServerTransactionId,
      'secret-xid',
      'secret-av',
    ]) {
      expect(text).not.toContain(secret as string);
    }
  });
});

describe('resolveThreeDSecure — properties', () => {
  const junk = fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -5, max: 120 }),
    fc.double(),
    fc.string({ maxLength: 6 }),
    fc.constantFrom('05', '5', '2', '02', '3ds', 'token', '2.2', '2.2.0', 'challenge', 'FRICTIONLESS'),
    fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }),
    fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
  );
  /** Distinctive values that must never leak into the result. */
  const secretValue = fc.uuid().map((uuid) => `SECRET-${uuid}`);
  const rawAuthentication = fc.record(
    {
      eci: junk,
      source: fc.oneof(fc.constantFrom('3ds', 'token'), junk),
      version: junk,
      flow: fc.oneof(fc.constantFrom('challenge', 'frictionless', 'Challenge'), junk),
      cavv: secretValue,
      dsTransactionId: secretValue,
      acsTransactionId: secretValue,
      threeDSServerTransactionId: secretValue,
    },
    { requiredKeys: ['cavv', 'dsTransactionId', 'acsTransactionId', 'threeDSServerTransactionId'] },
  );
  const input = fc.record({
    type: fc.oneof(fc.constantFrom('e-commerce', 'pos', 'tap-to-pay'), junk),
    paymentMethod: fc.oneof(fc.constantFrom(...CARD_NETWORKS, ...NON_CARD_METHODS, 'bank-transfer', 'klarna'), junk),
    authentication: fc.oneof(rawAuthentication, junk),
  });

  it('never throws; the result is null or has exactly the four keys with valid values and no secret', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const result = resolveThreeDSecure(raw as ResolveThreeDSecureInput);
        if (result === null) return;
        expect(Object.keys(result)).toStrictEqual(['eci', 'source', 'version', 'flow']);
        expect(result.eci).toMatch(/^[0-9]{2}$/);
        expect(['3ds', 'token']).toContain(result.source);
        if (result.version !== null) expect(result.version).toMatch(/^\d+\.\d+\.\d+$/);
        expect([null, 'frictionless', 'challenge']).toContain(result.flow);
        if (result.source === 'token') {
          expect(result.version).toBeNull();
          expect(result.flow).toBeNull();
        }
        const text = JSON.stringify(result);
        const authentication = raw.authentication as RawAuthentication;
        for (const key of ['cavv', 'dsTransactionId', 'acsTransactionId', 'threeDSServerTransactionId']) {
          expect(text).not.toContain(authentication[key] as string);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('gives an object exactly for e-commerce card payments with a two-digit ECI and source 3ds or token', () => {
    fc.assert(
      fc.property(input, (raw) => {
        const a = raw.authentication as RawAuthentication | null;
        const eligible =
          raw.type === 'e-commerce' &&
          (CARD_NETWORKS as readonly unknown[]).includes(raw.paymentMethod) &&
          a !== null &&
          typeof a === 'object' &&
          !Array.isArray(a) &&
          ((typeof a.eci === 'string' && /^\d{1,2}$/.test(a.eci)) ||
            (typeof a.eci === 'number' && Number.isInteger(a.eci) && a.eci >= 0 && a.eci < 100)) &&
          (a.source === '3ds' || a.source === 'token');
        expect(resolveThreeDSecure(raw as ResolveThreeDSecureInput) !== null).toBe(eligible);
      }),
      { numRuns: 2000 },
    );
  });

  it('normalises any numeric version to three parts that keep the first three numbers', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 999 }), { minLength: 1, maxLength: 6 }), (parts) => {
        const version = ecommerceVisa({ ...full3ds, version: parts.join('.') })?.version;
        expect(version).toBe([...parts, 0, 0].slice(0, 3).join('.'));
      }),
    );
  });
});
