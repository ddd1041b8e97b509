/**
 * Gateway configuration: merchants, accounts, secrets, registered source addresses, base URL, APM methods and
 * the notification switch. Read from YAML over the local defaults of `config.default.yaml`, validated with
 * `config.schema.json`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { didYouMean } from '../core/config/suggest.js';
import { shownValue } from '../core/mask.js';
import { parseYamlText, pointerKeys, yamlPosition } from '../core/yaml.js';
import { toViolations } from '../core/spec/ajv.js';
import { kitValidator } from '../core/spec/validators.js';
import { KIT_ROOT } from '../core/spec/paths.js';
import { ConfigError } from '../core/types/errors.js';

/** One account of a merchant. */
export interface AccountConfig {
  accountId: string;
  secret: string;
}

/** One merchant the gateway knows. */
export interface MerchantConfig {
  merchantId: string;
  secret?: string;
  registeredAddresses: string[];
  accounts: AccountConfig[];
}

/** The gateway configuration (`gateway/config.schema.json`). */
export interface GatewayConfig {
  baseUrl: string;
  connector: string;
  /** Which secret signs a request (default `account`). */
  secretScope?: 'account' | 'merchant';
  merchants: MerchantConfig[];
  apm: { paymentMethods: string[]; issuer: { mode: 'shopper' | 'autoApprove' | 'autoDecline' } };
  sessions: { ttlSeconds: number; maxSessions: number };
  /** `resendPerSecond`: with `serve --data`, the pace at which notifications pending at a restart are sent again. */
  notifications: { enabled: boolean; resendPerSecond?: number };
  /** Connections, time-outs and the drain on stop. */
  server: ServerConfig;
  /**
   * Caps checked before a body is parsed; `maxFieldLength`, checked after: the longest text value of a field when
   * the profile does not state its `limits.maxFieldLength` (the profile's wins).
   */
  limits: {
    maxFormFields: number;
    maxJsonKeys: number;
    maxJsonItems: number;
    maxDepth: number;
    maxFieldLength?: number;
  };
  /** Caps on the state kept in memory; past one, a new record evicts the oldest (with a database, from memory only). */
  store: {
    maxTransactions: number;
    maxPayouts: number;
    maxTokens: number;
    /** Most MiB the records may take (estimated); past it the oldest of the kind holding the most is evicted. */
    maxMiB?: number;
    compactAfterMiB?: number;
    syncWrites?: boolean;
  };
}

/** The HTTP server's bounds (`server` of the configuration). */
export interface ServerConfig {
  /** Most open connections (also bounded by the process's open-file limit). */
  maxConnections: number;
  /** Time to receive a request's headers. */
  headersTimeoutSeconds: number;
  /** Time to receive a whole request, body included. */
  requestTimeoutSeconds: number;
  /** A connection with no request in progress and no traffic for this long is closed. */
  idleTimeoutSeconds: number;
  /** On SIGTERM/SIGINT, how long requests already received may take to be answered. */
  drainSeconds: number;
  /**
   * A body over the profile's size limit answered (`bodyTooLarge`) as soon as its declared Content-Length or the bytes
   * received pass the limit, the rest unread, and the connection closed once the answer is written (default false:
   * the body is read, up to 16 times the limit, then answered).
   */
  earlyTooLarge?: boolean;
}

export { ConfigError };

function validator() {
  return kitValidator('https://pagi-conformance.dev/gateway/config.schema.json');
}

/** A configuration file's text. */
function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `cannot read configuration file ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); check the --config path`,
    );
  }
}

/** A configuration file's mapping; a YamlSyntaxError (file:line:column) for text that is not YAML. */
function readYamlFile(file: string, text = readText(file)): Record<string, unknown> {
  const value: unknown = parseYamlText(text, file);
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(`configuration file ${file} does not hold a mapping (found ${shownValue(value)})`);
  return value as Record<string, unknown>;
}

/** Where a JSON pointer of the configuration is written in the file, when it is (a default is in no file). */
function placeOf(pointer: string, source: { file: string; text: string } | undefined, key?: string): string {
  const keys = pointerKeys(pointer);
  const at = source && yamlPosition(source.text, key ? [...keys, key] : keys, Boolean(key));
  return at ? `${source.file}:${at.line}:${at.column}: ` : '';
}

/** The local defaults (`gateway/config.default.yaml`). */
export function defaultConfig(): GatewayConfig {
  return readYamlFile(path.join(KIT_ROOT, 'gateway', 'config.default.yaml')) as unknown as GatewayConfig;
}

/**
 * Check a configuration object; throws ConfigError listing every problem, each where `source` (the file read) has
 * it, with the value seen (masked) or the closest known key of a mistyped one.
 */
function validateConfig(
  value: unknown,
  origin = 'configuration',
  source?: { file: string; text: string },
): GatewayConfig {
  const validate = validator();
  if (!validate(value)) {
    const problems = toViolations(validate.errors)
      .filter((v) => v.keyword !== 'if')
      .map((v) => {
        const keys = pointerKeys(v.instancePath);
        const name = keys.length ? `${keys.join('.')} ` : '';
        const extra = v.params.additionalProperty;
        if (extra !== undefined) {
          const known = Object.keys(valueAtDefaults(keys));
          return `${placeOf(v.instancePath, source, String(extra))}${name}${v.message} ('${String(extra)}'${didYouMean(String(extra), known)})`;
        }
        const seen = valueAt(value, keys);
        return `${placeOf(v.instancePath, source)}${name}${v.message}${keys.length && seen !== undefined && v.keyword !== 'required' ? ` (found ${shownValue(seen, keys.at(-1))})` : ''}`;
      });
    throw new ConfigError(`${origin} is not valid: ${problems.join('; ')}; correct it (gateway/config.schema.json)`);
  }
  const config = value as GatewayConfig;
  if (config.server.headersTimeoutSeconds > config.server.requestTimeoutSeconds) {
    throw new ConfigError(
      `${origin} is not valid: server.headersTimeoutSeconds (${config.server.headersTimeoutSeconds}) is longer than server.requestTimeoutSeconds (${config.server.requestTimeoutSeconds}), which includes the headers`,
    );
  }
  const seen = new Set<string>();
  for (const merchant of config.merchants) {
    if (seen.has(merchant.merchantId)) throw new ConfigError(`${origin} lists merchant ${merchant.merchantId} twice`);
    seen.add(merchant.merchantId);
  }
  return config;
}

/** The value at a JSON pointer's keys, or undefined. */
function valueAt(value: unknown, keys: readonly string[]): unknown {
  let at = value;
  for (const k of keys) at = at && typeof at === 'object' ? (at as Record<string, unknown>)[k] : undefined;
  return at;
}

/** The mapping of the defaults at `keys` (the keys a section knows), or an empty one. */
function valueAtDefaults(keys: readonly string[]): Record<string, unknown> {
  const at = valueAt(defaultConfig(), keys.filter((k) => !/^[0-9]+$/.test(k)).length === keys.length ? keys : []);
  return at && typeof at === 'object' && !Array.isArray(at) ? (at as Record<string, unknown>) : {};
}

/** Configuration given in-process: any section may be left out, and any key of a mapping section. */
export type GatewayConfigOverrides = {
  [K in keyof GatewayConfig]?: GatewayConfig[K] extends unknown[] ? GatewayConfig[K] : Partial<GatewayConfig[K]>;
};

const isMapping = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** `over`'s keys over `base`'s, one level deep: a mapping of `over` is merged key by key into the same key of `base`. */
function overDefaults(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over))
    out[key] = isMapping(value) && isMapping(base[key]) ? { ...base[key], ...value } : value;
  return out;
}

/**
 * The configuration to run with: `config` as given (its sections left out taking the defaults), or the file's
 * keys over the local defaults (one level deep: `server: {drainSeconds: 2}` keeps the other `server` keys), or
 * the defaults alone.
 */
export function loadGatewayConfig(source?: { file?: string; config?: GatewayConfigOverrides }): GatewayConfig {
  const defaults = defaultConfig();
  if (source?.config)
    return validateConfig(
      overDefaults(defaults as unknown as Record<string, unknown>, source.config),
      'the configuration given',
    );
  if (!source?.file) return validateConfig(defaults, 'the default configuration');
  const text = readText(source.file);
  return validateConfig(
    overDefaults(defaults as unknown as Record<string, unknown>, readYamlFile(source.file, text)),
    `configuration file ${source.file}`,
    { file: source.file, text },
  );
}

/** Where the merchants' secrets come from: the `--config` file when it lists merchants, else the local defaults. */
export function secretSource(source?: { file?: string; config?: GatewayConfigOverrides }): string {
  if (source?.config) return 'configuration given in-process';
  if (source?.file && readYamlFile(source.file).merchants !== undefined) return `--config ${source.file}`;
  return 'defaults, gateway/config.default.yaml';
}

/** An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) in its IPv4 form; other addresses unchanged, lower-cased. */
function normaliseAddress(address: string): string {
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && lower.includes('.') ? lower.slice(7) : lower;
}

/** A merchant account as the gateway resolves it for one request. */
export interface ResolvedAccount {
  merchant: MerchantConfig;
  account: AccountConfig;
  /** The secret the configuration's `secretScope` designates. */
  secret: string;
}

/** Resolve a (merchant_id, account_id) pair; undefined when the gateway does not know it. */
export function resolveAccount(
  config: GatewayConfig,
  merchantId: unknown,
  accountId: unknown,
): ResolvedAccount | undefined {
  const scope = config.secretScope ?? 'account';
  if (typeof merchantId !== 'string' || typeof accountId !== 'string') return undefined;
  const merchant = config.merchants.find((m) => m.merchantId === merchantId);
  const account = merchant?.accounts.find((a) => a.accountId === accountId);
  if (!merchant || !account) return undefined;
  const secret = scope === 'merchant' ? merchant.secret : account.secret;
  return secret ? { merchant, account, secret } : undefined;
}

/** Whether `address` is one of the merchant's registered source addresses. */
export function isRegistered(merchant: MerchantConfig, address: string): boolean {
  const wanted = normaliseAddress(address);
  return merchant.registeredAddresses.some((a) => normaliseAddress(a) === wanted);
}

/** Every secret of the configuration (to mask them in log lines). */
export function configSecrets(config: GatewayConfig): string[] {
  return config.merchants.flatMap((m) => [...(m.secret ? [m.secret] : []), ...m.accounts.map((a) => a.secret)]);
}
