/**
 * The value types of the options table (core/config/options.ts): how a flag, a config-file key or an environment
 * variable is written and read, each refusing a value with one sentence naming where it was given.
 */
import { shownValue } from '../mask.js';
import { UsageError } from '../types/errors.js';

/** Payment methods for APM requests: values the target accepts, and one it does not know. */
export interface PaymentMethodsConfig {
  valid: string[];
  unknown: string;
}

/** How a value is written and read. `parse` gets a CLI/env string or a config-file/programmatic value. */
export interface ValueType<T> {
  /** Placeholder in `--help` (`URL`, `N`, `LIST`). */
  label: string;
  /** parseArgs type of the flag. */
  cli: 'string' | 'boolean';
  /** Values that are file paths are resolved against the config file's folder when read from it. */
  path?: boolean;
  parse(raw: unknown, where: string): T;
}

/** A value its type refuses: where it was given, what it must be and the value seen (masked: a secret, a card). */
function fail(where: string, expected: string, raw: unknown): never {
  throw new UsageError(`${where} must be ${expected} (received ${shownValue(raw, where)}).`);
}

/** A non-empty string (a file path when `isPath`). */
export const text = (label: string, isPath = false): ValueType<string> => ({
  label,
  cli: 'string',
  path: isPath,
  parse: (raw, where) =>
    typeof raw === 'string' && raw.trim() !== '' ? raw.trim() : fail(where, 'a non-empty string', raw),
});

/** A whole number of at least `min` (and at most `max` when given). */
export const integer = (label: string, min: number, max?: number): ValueType<number> => ({
  label,
  cli: 'string',
  parse: (raw, where) => {
    const n =
      typeof raw === 'number' ? raw : typeof raw === 'string' && /^[0-9]+$/.test(raw.trim()) ? Number(raw) : NaN;
    if (max !== undefined)
      return Number.isSafeInteger(n) && n >= min && n <= max ? n : fail(where, `an integer from ${min} to ${max}`, raw);
    return Number.isSafeInteger(n) && n >= min ? n : fail(where, `an integer of at least ${min}`, raw);
  },
});

/** A number of seconds, 0 or more (fractions allowed). */
export const seconds: ValueType<number> = {
  label: 'S',
  cli: 'string',
  parse: (raw, where) => {
    const n =
      typeof raw === 'number'
        ? raw
        : typeof raw === 'string' && /^[0-9]+(\.[0-9]+)?$/.test(raw.trim())
          ? Number(raw)
          : NaN;
    return Number.isFinite(n) && n >= 0 ? n : fail(where, 'a number of seconds, 0 or more', raw);
  },
};

/** A boolean flag (true or false in a file or the environment). */
export const flag: ValueType<boolean> = {
  label: '',
  cli: 'boolean',
  parse: (raw, where) =>
    typeof raw === 'boolean'
      ? raw
      : raw === 'true'
        ? true
        : raw === 'false'
          ? false
          : fail(where, 'true or false', raw),
};

/** One of a fixed list of words. */
export const oneOf = <T extends string>(values: readonly T[]): ValueType<T> => ({
  label: values.join('|'),
  cli: 'string',
  parse: (raw, where) => (values.includes(raw as T) ? (raw as T) : fail(where, `one of ${values.join(', ')}`, raw)),
});

/** A list: comma-separated text, repeated flags or a YAML sequence of strings. */
export const list: ValueType<string[]> = {
  label: 'LIST',
  cli: 'string',
  parse: (raw, where) => {
    const items = (Array.isArray(raw) ? raw : [raw]).flatMap((x) =>
      typeof x === 'string' ? x.split(',') : fail(where, 'a comma-separated list', raw),
    );
    return items.map((x) => x.trim()).filter(Boolean);
  },
};

/** An absolute http(s) URL, without a trailing slash. */
export const url: ValueType<string> = {
  label: 'URL',
  cli: 'string',
  parse: (raw, where) => {
    const value = text('URL').parse(raw, where);
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return fail(where, 'an absolute http(s) URL', raw);
    }
    return parsed.protocol === 'http:' || parsed.protocol === 'https:'
      ? value.replace(/\/+$/, '')
      : fail(where, 'an http or https URL', raw);
  },
};

/** `i/n`: shard i of n. */
export const shard: ValueType<string> = {
  label: 'i/n',
  cli: 'string',
  parse: (raw, where) => {
    const m = typeof raw === 'string' ? /^([0-9]+)\/([0-9]+)$/.exec(raw.trim()) : null;
    const [i, n] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
    return m && i >= 1 && i <= n ? `${i}/${n}` : fail(where, 'i/n with 1 <= i <= n', raw);
  },
};

/** `HOST:PORT` (an IPv6 address in brackets). */
export const hostPort: ValueType<string> = {
  label: 'HOST:PORT',
  cli: 'string',
  parse: (raw, where) =>
    typeof raw === 'string' && /^(\[[0-9a-fA-F:.]+\]|[^:\s]+):[0-9]{1,5}$/.test(raw.trim())
      ? raw.trim()
      : fail(where, 'HOST:PORT (IPv6 in brackets)', raw),
};

/** A mapping of names to strings (config file only). */
export const stringMap: ValueType<Record<string, string>> = {
  label: 'MAP',
  cli: 'string',
  parse: (raw, where) => {
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return fail(where, 'a mapping of names to strings', raw);
    const entries = Object.entries(raw).map(([k, v]) => [
      k,
      typeof v === 'string' || typeof v === 'number' ? String(v) : fail(`${where}.${k}`, 'a string', v),
    ]);
    return Object.fromEntries(entries);
  },
};

/** APM payment methods: valid (list) and one unknown to the target (config file only). */
export const paymentMethods: ValueType<PaymentMethodsConfig> = {
  label: 'MAP',
  cli: 'string',
  parse: (raw, where) => {
    const v = raw as Partial<Record<keyof PaymentMethodsConfig, unknown>> | undefined;
    if (!v || typeof v !== 'object') return fail(where, 'a mapping with valid (list) and unknown (string)', raw);
    return {
      valid: list.parse(v.valid, `${where}.valid`),
      unknown: text('METHOD').parse(v.unknown, `${where}.unknown`),
    };
  },
};
