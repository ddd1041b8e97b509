/** Faults only generated requests reach (the deep family). */
import { type FaultDefinition, body } from './fault-hooks.js';

/** The variants of this file: deep: faults only generated requests reach. */
export const DEEP_FAULTS: readonly FaultDefinition[] = [
  {
    kind: 'fault',
    name: 'direct-crash-on-challenge-window',
    description:
      'Direct payments asking for 3-D Secure with any challenge window size but the one the document shows (01) crash the gateway (HTTP 500).',
    requirement: 'PAGI-ERR-002',
    expectedCheck: 'deepNeverServerError',
    deepOperation: 'authoriseDirect',
    refuse: (op, b) => {
      if (
        op === 'authoriseDirect' &&
        typeof b.challenge_window_size === 'string' &&
        b.challenge_window_size !== '01' &&
        b.open3d !== undefined
      ) {
        throw new Error(`no challenge window layout ${b.challenge_window_size}`);
      }
      return undefined;
    },
  },
  {
    kind: 'fault',
    name: 'direct-amount-unformatted-for-unlisted-currency',
    description:
      "Direct payment responses write amount without its two decimals (150 for 150.00) for a currency outside the gateway's minor-unit table (USD, EUR, BRL, GBP).",
    requirement: 'PAGI-FMT-001',
    expectedCheck: 'deepAnswersConform',
    deepOperation: 'authoriseDirect',
    reply: body(['authoriseDirect'], (b) =>
      typeof b.currency === 'string' &&
      !['USD', 'EUR', 'BRL', 'GBP'].includes(b.currency) &&
      typeof b.amount === 'string'
        ? { ...b, amount: String(Math.round(Number(b.amount))) }
        : b,
    ),
  },
  {
    kind: 'fault',
    name: 'direct-signature-ignores-currency',
    description:
      "The direct payment's signature check takes a well-formed currency from the account's default (USD), not from the request: a currency changed after signing passes.",
    requirement: 'PAGI-AUTH-006',
    expectedCheck: 'deepInvalidRequestRefused',
    deepOperation: 'authoriseDirect',
    switches: {
      signatureFieldFixed: { operation: 'authoriseDirect', field: 'currency', value: 'USD', pattern: '^[A-Z]{3}$' },
    },
  },
];
