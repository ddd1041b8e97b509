/**
 * The reference gateway: a faithful, stateful implementation of the whole interface, driven by the spec, the
 * schemas and a profile (the reference profile by default). Start it in-process with `startGateway`, or from the
 * command line with `pagi-conform serve` (gateway/cli.ts).
 */
import { maskText } from '../core/mask.js';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kitSpec, loadSpec } from '../core/spec/load.js';
import { profileForSpec } from '../core/profile/operations.js';
import { loadProfile, type Profile } from '../core/profile/load.js';
import type { Migration } from '../core/profile/migrate.js';
import {
  configSecrets,
  ConfigError,
  loadGatewayConfig,
  secretSource,
  type GatewayConfig,
  type GatewayConfigOverrides,
} from './config.js';
import { fieldLengthOf, operationFacts, type FieldLength, type Gateway } from './context.js';
import { findFault, switchesOf, type FaultDefinition } from './faults.js';
import { Notifier, type NotificationAttempt } from './notify.js';
import { openPersistence, type Persistence, type Restored } from './persist.js';
import { databaseName, openShared, type SharedState } from './shared.js';
import { createGatewayServer, type DrainResult, type GatewayServer, type ServerStats } from './server.js';
import type { WireResponse } from './reply.js';
import { Store } from './store.js';
import { UsageError } from '../core/types/errors.js';

export type { GatewayConfig, GatewayConfigOverrides, MerchantConfig, AccountConfig } from './config.js';
export { ConfigError, defaultConfig, loadGatewayConfig } from './config.js';
export {
  FAULTS,
  findFault,
  UnknownFaultError,
  type BehaviourSwitches,
  type DeviationDefinition,
  type FaultDefinition,
  type NeutralDefinition,
} from './faults.js';
export type { NotificationAttempt } from './notify.js';
export type { DrainResult, ServerStats } from './server.js';
export type { Restored } from './persist.js';
export { JournalError } from '../core/types/errors.js';
export { checkDatabase, DATABASE_FILE, DatabaseDamage } from './database.js';

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
  /** Configuration object (instead of a file); sections it leaves out take the local defaults. */
  config?: GatewayConfigOverrides;
  /** Profile name (under spec/profiles) or file; default `reference`. */
  profile?: string;
  /** Name of a fault to switch on (see `FAULTS`). */
  fault?: string;
  /**
   * Folder holding the spec/ and schemas/ to serve (a copy of the kit's with operations added or changed); default the
   * kit's own. An operation the gateway has no handler for is answered as a mock from the spec.
   */
  specRoot?: string;
  /** Receives one masked line per request and per notification attempt. */
  log?: (line: string) => void;
  /** Serve `POST /_admin/reset` and `GET /_admin/stats` (off by default). */
  admin?: boolean;
  /**
   * Keep the state in this folder (`serve --data DIR`): a SQLite database read back on start, every change committed
   * before its answer is sent. Without it the state lives in memory only.
   */
  dataDir?: string;
  /**
   * Keep the state in this PostgreSQL database (`serve --database postgres://…`), shared with the other gateway
   * processes using it (one sandbox behind one address). Not with `dataDir`.
   */
  database?: string;
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
  /** The profile file in use. */
  profileFile: string;
  /** Present when the profile file is of an earlier format, migrated in memory (the caller prints the deprecation line). */
  profileMigration?: Migration;
  /** Where the merchants' secrets come from (`--config FILE` or the defaults); never the secret itself. */
  secretSource: string;
  /** Open connections allowed (configuration, bounded by the open-file limit). */
  connectionCap: number;
  /** The longest field value accepted: the profile's `limits.maxFieldLength`, else the configuration's (its default). */
  fieldLength: FieldLength;
  /** The folder the state is kept in, and what was found there on start (none: in memory only). */
  data?: { dir: string; restored: Restored; databaseBytes(): number };
  /** The PostgreSQL of a shared sandbox (its address without password), and what was found there on start. */
  shared?: { database: string; restored: Restored };
  /** Connection and request counters. */
  serverStats(): ServerStats;
  /** Records evicted to stay under the store's caps. */
  evictions(): ReturnType<Store['evictions']>;
  /**
   * Stop gracefully: stop accepting, answer the requests already received until `deadlineMs` (default: the
   * configuration's `server.drainSeconds`), then close every connection; resolves with how many were cut off.
   */
  drain(deadlineMs?: number, abort?: AbortSignal): Promise<DrainResult>;
  /**
   * Answer a request without a socket, through the same path as the server (for tests driving many requests):
   * `remoteAddress` defaults to 127.0.0.1, `headers` to none.
   */
  inject(request: {
    method?: string;
    path: string;
    body: string;
    headers?: Record<string, string>;
    remoteAddress?: string;
  }): WireResponse;
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

/** Masks of log lines: the configuration's secrets and the profile's test cards. */
type LogMask = { secrets: string[]; cards: string[] };

/** A gateway put together from its options, not yet serving. */
interface Prepared {
  gw: Gateway;
  fault: FaultDefinition | undefined;
  mask: LogMask;
  /** The profile file in use, and its migration when it is of an earlier format. */
  profileFile: string;
  profileMigration: Migration | undefined;
}

/** Refuse a configuration that signs with one secret per merchant while a merchant has none. */
function checkMerchantSecrets(config: GatewayConfig): void {
  if (config.secretScope !== 'merchant') return;
  const missing = config.merchants.filter((m) => !m.secret).map((m) => m.merchantId);
  if (missing.length)
    throw new ConfigError(
      `the configuration signs with one secret per merchant, but merchant ${missing.join(', ')} has no secret`,
    );
}

/** Load the spec, profile, configuration and fault, and put the gateway's context together. */
function prepareGateway(options: GatewayOptions): Prepared {
  const spec = options.specRoot ? loadSpec(options.specRoot) : kitSpec();
  const loaded = loadProfile(options.profile ?? 'reference');
  const { file: profileFile, migration: profileMigration } = loaded;
  const profile = profileForSpec(loaded.profile, spec);
  const config = loadGatewayConfig({ file: options.configFile, config: options.config });
  checkMerchantSecrets(config);
  const fault = options.fault ? findFault(options.fault) : undefined;
  const log = options.log ?? (() => undefined);
  const store = new Store(config.store);
  const switches = switchesOf(fault);
  const mask: LogMask = {
    secrets: configSecrets(config),
    cards: [...profile.payments.testCards.approve, ...profile.payments.testCards.decline],
  };
  const gw: Gateway = {
    spec,
    profile,
    config,
    baseUrl: '',
    store,
    // Notification lines name the order (a merchant's order_no may hold anything): masked like request lines.
    notifier: new Notifier(
      profile,
      (line) => log(maskText(line, mask)),
      config.notifications.enabled,
      !switches.unsignedNotifications,
      fault?.notification
        ? (n) => {
            const out = fault.notification!({ kind: n.kind, url: n.url, body: n.body });
            return { ...n, url: out.url, body: out.body };
          }
        : undefined,
    ),
    switches,
    refuseAlso: fault?.refuse,
    facts: operationFacts(spec),
    // The profile's longest field value; the configuration's (its default) when the profile does not state it.
    fieldLength: loaded.unstated.includes('/limits/maxFieldLength')
      ? { max: config.limits.maxFieldLength, from: 'configuration' }
      : { max: profile.limits.maxFieldLength, from: 'profile' },
    log,
    now: () => new Date(),
  };
  return { gw, fault, mask, profileFile, profileMigration };
}

/** Open the data folder (`serve --data DIR`): read it into the store; the server then waits on its commits. */
function openData(dir: string, gw: Gateway, mask: LogMask): Persistence {
  const persistence = openPersistence(dir, {
    store: gw.store,
    notifier: gw.notifier,
    config: gw.config,
    warn: (line) => gw.log(maskText(`warning: ${line}`, mask)),
  });
  gw.durability = persistence.durability;
  return persistence;
}

/** Listen; rejects with the server's error (address in use, …). */
function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, fail) => {
    // The two refusals a user causes (a port taken, an address not of this host) are theirs: one sentence each.
    const reject = (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'EADDRINUSE'
          ? new UsageError(`Port ${port} is already in use; stop what listens there or choose another with --port.`)
          : error.code === 'EADDRNOTAVAIL' || error.code === 'EACCES'
            ? new UsageError(
                `Cannot listen on ${host}:${port} (${error.code}); give an address of this host (--host) and a port you may open (--port).`,
              )
            : error,
      );
    server.once('error', reject);
    // A deep accept queue: a burst of new connections (a thousand clients at once) waits there instead of being
    // dropped and retried a second later (the kernel may bound it lower: net.core.somaxconn).
    server.listen(port, host, 4096, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The started gateway's handle over its server, store, notifier and data folder. */
function runningGateway(
  options: GatewayOptions,
  { gw, fault, profileFile, profileMigration }: Prepared,
  gs: GatewayServer,
  persistence: Persistence | undefined,
  url: string,
  port: number,
): RunningGateway {
  const { store, config } = gw;
  return {
    url,
    baseUrl: gw.baseUrl,
    port,
    profile: gw.profile,
    config,
    fault,
    profileFile,
    ...(profileMigration ? { profileMigration } : {}),
    secretSource: secretSource({ file: options.configFile, config: options.config }),
    connectionCap: gs.connectionCap,
    fieldLength: fieldLengthOf(gw),
    data:
      persistence && options.dataDir
        ? { dir: options.dataDir, restored: persistence.restored, databaseBytes: persistence.databaseBytes }
        : undefined,
    serverStats: () => gs.stats(),
    evictions: () => store.evictions(),
    drain: async (deadlineMs = config.server.drainSeconds * 1000, abort) => {
      const result = await gs.drain(deadlineMs, abort);
      gw.notifier.close();
      await persistence?.close();
      return result;
    },
    inject: (r) =>
      gs.inject({
        method: r.method ?? 'POST',
        path: r.path,
        body: r.body,
        headers: r.headers ?? {},
        remoteAddress: r.remoteAddress ?? '127.0.0.1',
      }),
    stateDigest: () => store.digest(),
    counts: () => store.counts(),
    notifications: () => gw.notifier.attempts(),
    notificationsIdle: () => gw.notifier.idle(),
    close: async () => {
      gw.notifier.close();
      await gs.close();
      await persistence?.close();
    },
  };
}

/** Start the gateway (in-process). Throws ConfigError / UnknownFaultError / profile errors before listening. */
export async function startGateway(options: GatewayOptions = {}): Promise<RunningGateway> {
  const prepared = prepareGateway(options);
  const { gw, fault, mask } = prepared;
  if (options.dataDir && options.database)
    throw new ConfigError('--data and --database name two stores: give one (a folder, or a shared PostgreSQL)');
  const persistence = options.dataDir ? openData(options.dataDir, gw, mask) : undefined;
  const shared = options.database ? await openShared(options.database, gw.store, gw.config) : undefined;
  gw.shared = shared;
  const gs = createGatewayServer(gw, { fault, logRequests: options.log !== undefined, mask, admin: options.admin });
  try {
    await listen(gs.server, options.port ?? 0, options.host ?? '127.0.0.1');
  } catch (error) {
    await persistence?.close();
    await shared?.close();
    throw error;
  }
  const address = gs.server.address() as AddressInfo;
  const url = `http://${hostForUrl(address.address)}:${address.port}`;
  gw.baseUrl = (options.baseUrl || gw.config.baseUrl || url).replace(/\/+$/, '');
  persistence?.resend();
  const running = runningGateway(options, prepared, gs, persistence, url, address.port);
  return shared ? withShared(running, shared, options.database!) : running;
}

/** The handle of a gateway on a shared PostgreSQL: its stop closes the connection too. */
function withShared(running: RunningGateway, shared: SharedState, url: string): RunningGateway {
  return {
    ...running,
    shared: { database: databaseName(url), restored: shared.restored },
    drain: async (deadlineMs, abort) => {
      const result = await running.drain(deadlineMs, abort);
      await shared.close();
      return result;
    },
    close: async () => {
      await running.close();
      await shared.close();
    },
  };
}
