/**
 * Gateway configuration: merchants, accounts, secrets, registered source addresses, base URL, APM methods and
 * the notification switch. Read from YAML over the local defaults of `config.default.yaml`, validated with
 * `config.schema.json`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseYamlText } from '../core/yaml.js';
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
   * Caps checked before a body is parsed; `maxFieldLength`, checked after: the longest text value of a field (the
   * sandbox's own limit, not a profile point: the interface shows no lengths).
   */
  limits: {
    maxFormFields: number;
    maxJsonKeys: number;
    maxJsonItems: number;
    maxDepth: number;
    maxFieldLength?: number;
  };
  /** Caps on the state kept in memory; past one, a new record evicts the oldest. */
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
}

export { ConfigError };

function validator() {
  return kitValidator('https://pagi-conformance.dev/gateway/config.schema.json');
}

function readYamlFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read configuration file ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYamlText(text);
  } catch (error) {
    throw new ConfigError(`configuration file ${file} is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(`configuration file ${file} does not hold a mapping`);
  return value as Record<string, unknown>;
}

/** The local defaults (`gateway/config.default.yaml`). */
export function defaultConfig(): GatewayConfig {
  return readYamlFile(path.join(KIT_ROOT, 'gateway', 'config.default.yaml')) as unknown as GatewayConfig;
}

/** Check a configuration object; throws ConfigError listing every problem. */
function validateConfig(value: unknown, origin = 'configuration'): GatewayConfig {
  const validate = validator();
  if (!validate(value)) {
    const problems = toViolations(validate.errors)
      .filter((v) => v.keyword !== 'if')
      .map(
        (v) =>
          `${v.instancePath || '/'} ${v.message}${v.params.additionalProperty ? ` (${String(v.params.additionalProperty)})` : ''}`,
      );
    throw new ConfigError(`${origin} is not valid: ${problems.join('; ')}`);
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
  return validateConfig(
    overDefaults(defaults as unknown as Record<string, unknown>, readYamlFile(source.file)),
    `configuration file ${source.file}`,
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
