/** `pagi-conform serve`: start the reference gateway from the command line. */
import { watchLaunchers } from './launcher.js';
import { flagHelp, parseFlags, type FlagTable } from '../core/config/flags.js';
import { flag, integer, seconds, text } from '../core/config/options.js';
import { deprecationLine } from '../core/profile/load.js';
import { EXIT, UsageError } from '../core/types/errors.js';
import path from 'node:path';
import { checkDatabase, FAULTS, JournalError, startGateway } from './index.js';
import type { FieldLength } from './context.js';

/** What `serve` takes. */
interface ServeFlags {
  port: number;
  host: string;
  config: string;
  fault: string;
  profile: string;
  admin: boolean;
  drainSeconds: number;
  data: string;
  check: boolean;
  database: string;
}

/** The command's options: one row each (a missing row is a compile error). */
export const SERVE_FLAGS = {
  port: { flag: 'port', type: integer('N', 0, 65535), default: 8080, description: 'listen port (0 picks a free port)' },
  host: { flag: 'host', type: text('H'), default: '127.0.0.1', description: 'listen address' },
  config: {
    flag: 'config',
    type: text('FILE', true),
    description:
      'gateway configuration (merchants, secrets, addresses, base URL), read over gateway/config.default.yaml',
  },
  fault: {
    flag: 'fault',
    type: text('NAME'),
    description:
      'switch on one named variant: a deviation from the interface, or a neutral change the interface allows (marked neutral)',
  },
  profile: {
    flag: 'profile',
    type: text('FILE', true),
    description:
      'profile file or name under spec/profiles (default: reference); one of an earlier format is migrated in memory, with one deprecation line',
  },
  admin: {
    flag: 'admin',
    type: flag,
    default: false,
    description:
      'serve POST /_admin/reset (clear the state) and GET /_admin/stats (counts, evictions, connections, memory)',
  },
  drainSeconds: {
    flag: 'drain-seconds',
    type: seconds,
    description: 'drain deadline on stop (default: server.drainSeconds of the configuration, 10)',
  },
  data: {
    flag: 'data',
    type: text('DIR', true),
    description:
      'keep the state (payments, refunds, tokens, payouts, sessions, pending notifications, counters) in this folder: a SQLite database (DIR/gateway.sqlite) read back on start, each change committed before its answer; a journal of an earlier version is imported once (default: in memory only)',
  },
  database: {
    flag: 'database',
    type: text('URL'),
    description:
      'keep the state in this PostgreSQL database (postgres://user:password@host/db) shared by every gateway process given it: one sandbox behind one address, requests one at a time across them (not with --data)',
  },
  check: {
    flag: 'check',
    type: flag,
    default: false,
    description:
      "with --data: run SQLite's integrity check on the folder's database, print what it holds, and exit (0 sound, 2 damaged) without serving",
  },
} satisfies FlagTable<ServeFlags>;

const USAGE = `usage: pagi-conform serve [--port N] [--host H] [--config FILE] [--fault NAME] [--profile FILE] [--admin] [--drain-seconds S] [--data DIR]

Start the reference gateway of the Payment Acquiring Gateway Interface. GET /healthz answers ready (200) or
draining (503). On SIGTERM/SIGINT/SIGHUP it stops accepting, answers the requests already received within the drain
deadline, then exits: 0 when every request was answered, 1 when some were cut off (a second signal cuts at once).
Started through npm (npx, npm exec, npm run), it stops the same way when the npm process that started it is gone.

options:
${flagHelp(SERVE_FLAGS)}

faults:
${FAULTS.map((f) => `  ${f.name.padEnd(36)}${f.kind === 'neutral' ? '(neutral) ' : ''}${f.description}`).join('\n')}`;

/**
 * Run `serve` with its arguments; resolves with the exit code once the gateway stopped, or throws the KitError that
 * kept it from starting (cli/main.ts prints it and exits with its code).
 */
export async function serveMain(argv: string[]): Promise<number> {
  const parsed = parseFlags(SERVE_FLAGS, argv);
  if (parsed.help) {
    console.log(USAGE);
    return EXIT.ok;
  }
  const values: Partial<ServeFlags> = parsed.values;
  if (values.check) return checkMain(values.data);
  const port = values.port!;
  const drainSeconds = values.drainSeconds;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      port,
      host: values.host ?? '127.0.0.1',
      configFile: values.config,
      fault: values.fault,
      profile: values.profile,
      admin: values.admin!,
      dataDir: values.data,
      database: values.database,
      // Warnings (a journal line skipped on import, a stored card dropped) on standard error, the rest on standard output.
      log: (line) => (line.startsWith('warning: ') ? console.error(line) : console.log(line)),
    });
  } catch (error) {
    // The store's messages name the folder or database, not the flag it came from.
    if (error instanceof JournalError)
      throw new JournalError(`${values.database ? '--database' : '--data'}: ${error.message}`);
    throw error;
  }
  // Signal handlers first, then the banner: a signal sent as soon as the banner shows must find them in place.
  // The first signal starts the drain; a second one ends it at once.
  const abort = new AbortController();
  let first: ((name: string) => void) | undefined;
  const signalled = new Promise<string>((resolve) => (first = resolve));
  const onSignal = (name: string) => {
    if (first) {
      first(name);
      first = undefined;
    } else abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('SIGHUP', onSignal);
  // Started through npm (npx, npm exec, npm run): stop as on a signal once npm or the shell it ran the command in is
  // gone (killed with SIGKILL, npm forwards nothing), instead of serving on as an orphan.
  const unwatch = watchLaunchers((pid) => onSignal(`the npm process that started it (pid ${pid}) is gone`));
  if (gateway.profileMigration) console.error(deprecationLine(values.profile ?? 'reference', gateway.profileMigration));
  for (const line of banner(gateway, values.admin ?? false)) console.log(line);
  const signal = await signalled;
  const deadlineMs = (drainSeconds ?? gateway.config.server.drainSeconds) * 1000;
  console.log(
    `${signal}: draining (no new connections; requests already received answered within ${deadlineMs / 1000} s)`,
  );
  const { answered, cutOff } = await gateway.drain(deadlineMs, abort.signal);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  process.off('SIGHUP', onSignal);
  unwatch();
  const during = `${answered} request${answered === 1 ? '' : 's'} answered while draining`;
  if (cutOff === 0) {
    console.log(`stopped: ${during}, none cut off`);
    return EXIT.ok;
  }
  console.log(
    `stopped: ${during}, ${cutOff} request${cutOff === 1 ? '' : 's'} cut off ${abort.signal.aborted ? 'by a second signal' : `at the drain deadline (${deadlineMs / 1000} s)`}`,
  );
  return EXIT.failed;
}

/** `serve --data DIR --check`: the database's integrity check and counts; exit 0 when sound, 2 when not. */
function checkMain(dir: string | undefined): number {
  if (!dir) {
    throw new UsageError(
      "--check needs --data DIR (the folder to check); run 'pagi-conform serve --help' for the options.",
    );
  }
  try {
    const { file, counts: c, bytes } = checkDatabase(dir);
    console.log(`${path.resolve(file)}: integrity check ok (${bytes} bytes)`);
    console.log(
      `holds ${c.payments} payments, ${c.refunds} refunds, ${c.tokens} tokens, ${c.payouts} payouts, ${c.sessions} sessions, ${c.notifications} pending notifications`,
    );
    return EXIT.ok;
  } catch (error) {
    if (!(error instanceof JournalError)) throw error;
    throw new JournalError(`--data: ${error.message}`);
  }
}

/** The banner's words for the longest field value: its length and where it comes from. */
function fieldLengthLine({ max, from }: FieldLength): string {
  if (max === undefined) return 'no field length limit';
  return `${max} characters a field (${from === 'profile' ? "the profile's limits.maxFieldLength" : "the configuration's limits.maxFieldLength: the profile states none"})`;
}

/** What an integrator needs to start: where, as whom (never the secret itself), with which profile and bounds. */

function banner(gateway: Awaited<ReturnType<typeof startGateway>>, admin: boolean): string[] {
  const lines = [`listening on ${gateway.url}`, `base URL ${gateway.baseUrl} (operations under ${gateway.baseUrl}/v1)`];
  for (const m of gateway.config.merchants) {
    lines.push(
      `merchant ${m.merchantId}, account${m.accounts.length === 1 ? '' : 's'} ${m.accounts.map((a) => a.accountId).join(', ')}; secret source: ${gateway.secretSource}`,
    );
  }
  lines.push(`profile ${gateway.profile.name} ${gateway.profile.version} (${gateway.profileFile})`);
  const { server, limits, store, sessions } = gateway.config;
  lines.push(
    `limits: ${gateway.connectionCap} connections, ${gateway.profile.limits.maxBodyBytes} body bytes${server.earlyTooLarge ? ' (past them answered early, connection closed)' : ''}, ${limits.maxFormFields} form fields, ${limits.maxJsonKeys} JSON keys, ${limits.maxJsonItems} array elements, depth ${limits.maxDepth}, ${fieldLengthLine(gateway.fieldLength)}; ` +
      `keeps ${store.maxTransactions} payments, ${sessions.maxSessions} sessions, ${store.maxPayouts} payouts, ${store.maxTokens} tokens, ${store.maxMiB ?? 512} MiB (oldest evicted${gateway.data || gateway.shared ? ' from memory, kept in the database' : ''}); drain ${server.drainSeconds} s`,
  );
  lines.push(
    admin
      ? 'health GET /healthz; admin POST /_admin/reset, GET /_admin/stats'
      : 'health GET /healthz (admin endpoints off: --admin)',
  );
  const data = gateway.data;
  if (data) {
    const r = data.restored;
    if (r.imported) lines.push(r.imported);
    lines.push(
      `state kept in ${path.resolve(data.dir)}: ${r.transactions} payments, ${r.refunds} refunds, ${r.tokens} tokens, ${r.payouts} payouts, ${r.sessions} sessions restored; ${r.notifications} notifications to send again (at most ${gateway.config.notifications.resendPerSecond ?? 100} a second)`,
    );
  } else if (gateway.shared) {
    const r = gateway.shared.restored;
    lines.push(
      `state shared in ${gateway.shared.database}: ${r.transactions} payments, ${r.refunds} refunds, ${r.tokens} tokens, ${r.payouts} payouts, ${r.sessions} sessions found`,
    );
  } else lines.push('state in memory only (--data DIR keeps it across restarts)');
  if (gateway.fault) lines.push(`fault '${gateway.fault.name}' is on: ${gateway.fault.description}`);
  return lines;
}
