/**
 * The reference gateway: a faithful, stateful implementation of the whole interface, driven by the spec, the
 * schemas and a profile (the reference profile by default). Start it in-process with `startGateway`, or from the
 * command line with `pagi-conform serve` (gateway/cli.ts).
 */
import type { AddressInfo } from 'node:net';
import { kitSpec } from '../src/spec/load.js';
import { loadProfile, type Profile } from '../src/profile/load.js';
import { configSecrets, ConfigError, loadGatewayConfig, type GatewayConfig } from './config.js';
import { operationFacts, type Gateway } from './context.js';
import { findFault, switchesOf, type FaultDefinition } from './faults.js';
import { Notifier, type NotificationAttempt } from './notify.js';
import { createGatewayServer } from './server.js';
import { Store } from './store.js';

export type { GatewayConfig, MerchantConfig, AccountConfig } from './config.js';
export { ConfigError, defaultConfig, loadGatewayConfig } from './config.js';
export { FAULTS, findFault, UnknownFaultError, type BehaviourSwitches, type DeviationDefinition, type FaultDefinition, type NeutralDefinition } from './faults.js';
export type { NotificationAttempt } from './notify.js';

/** How to start the gateway. */
export interface GatewayOptions {
  /** Listen port; 0 (the default) picks a free one. */
  port?: number;
  /** Listen address (default 127.0.0.1). */
  host?: string;
  /** The interface's `{base_url}`; default: the configuration's, else the listen address. */
  baseUrl?: string;
  /** Configuration file read over the local defaults (`gateway/config.default.yaml`). */
  configFile?: string;
  /** Configuration object used as is (instead of a file). */
  config?: GatewayConfig;
  /** Profile name (under spec/profiles) or file; default `reference`. */
  profile?: string;
  /** Name of a fault to switch on (see `FAULTS`). */
  fault?: string;
  /** Receives one masked line per request and per notification attempt. */
  log?: (line: string) => void;
}

/** A started gateway. */
export interface RunningGateway {
  /** `http://host:port` the gateway listens on. */
  url: string;
  /** The `{base_url}` its pages and `issuer_url` use. */
  baseUrl: string;
  port: number;
  profile: Profile;
  config: GatewayConfig;
  fault?: FaultDefinition;
  /** sha256 over the whole state: equal digests mean no request changed anything. */
  stateDigest(): string;
  /** Counts of what the gateway holds. */
  counts(): ReturnType<Store['counts']>;
  /** Notification attempts made so far (latest ones), oldest first. */
  notifications(): readonly NotificationAttempt[];
  /** Resolves when no notification is being delivered or waiting for a retry. */
  notificationsIdle(): Promise<void>;
  /** Stop listening, close connections, drop pending notification retries. */
  close(): Promise<void>;
}

function hostForUrl(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

/** Start the gateway (in-process). Throws ConfigError / UnknownFaultError / profile errors before listening. */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const spec = kitSpec();
  const { profile } = loadProfile(options.profile ?? 'reference');
  const config = loadGatewayConfig({ file: options.configFile, config: options.config });
  if (config.secretScope === 'merchant') {
    const missing = config.merchants.filter((m) => !m.secret).map((m) => m.merchantId);
    if (missing.length) throw new ConfigError(`the configuration signs with one secret per merchant, but merchant ${missing.join(', ')} has no secret`);
  }
  const fault = options.fault ? findFault(options.fault) : undefined;
  const log = options.log ?? (() => undefined);
  const store = new Store();
  const switches = switchesOf(fault);
  const mask = { secrets: configSecrets(config), cards: [...profile.payments.testCards.approve, ...profile.payments.testCards.decline] };
  const gw: Gateway = {
    spec,
    profile,
    config,
    baseUrl: '',
    store,
    notifier: new Notifier(profile, log, config.notifications.enabled, !switches.unsignedNotifications),
    switches,
    refuseAlso: fault?.refuse,
    facts: operationFacts(spec),
    log,
    now: () => new Date(),
  };
  const server = createGatewayServer(gw, { fault, logRequests: options.log !== undefined, mask });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const url = `http://${hostForUrl(address.address)}:${address.port}`;
  gw.baseUrl = (options.baseUrl || config.baseUrl || url).replace(/\/+$/, '');
  return {
    url,
    baseUrl: gw.baseUrl,
    port: address.port,
    profile,
    config,
    fault,
    stateDigest: () => store.digest(),
    counts: () => store.counts(),
    notifications: () => gw.notifier.attempts(),
    notificationsIdle: () => gw.notifier.idle(),
    close: () =>
      new Promise<void>((resolve) => {
        gw.notifier.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
