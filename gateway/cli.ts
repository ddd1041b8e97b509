/** `pagi-conform serve`: start the reference gateway from the command line. */
import { parseArgs } from 'node:util';
import { FAULTS, startGateway } from './index.js';

const USAGE = `usage: pagi-conform serve [--port N] [--host H] [--config FILE] [--fault NAME] [--profile FILE] [--admin] [--drain-seconds S]

Start the reference gateway of the Payment Acquiring Gateway Interface. GET /healthz answers ready (200) or
draining (503). On SIGTERM/SIGINT it stops accepting, answers the requests already received within the drain
deadline, then exits: 0 when every request was answered, 1 when some were cut off (a second signal cuts at once).

options:
  --port N          listen port (default 8080; 0 picks a free port)
  --host H          listen address (default 127.0.0.1)
  --config FILE     gateway configuration (merchants, secrets, addresses, base URL),
                    read over gateway/config.default.yaml
  --fault NAME      switch on one named variant: a deviation from the interface,
                    or a neutral change the interface allows (marked neutral)
  --profile FILE    profile file or name under spec/profiles (default: reference)
  --admin           serve POST /_admin/reset (clear the state) and GET /_admin/stats
                    (counts, evictions, connections, memory); off by default
  --drain-seconds S drain deadline on stop (default: server.drainSeconds of the
                    configuration, 10)
  --help            show this text

faults:
${FAULTS.map((f) => `  ${f.name.padEnd(36)}${f.kind === 'neutral' ? '(neutral) ' : ''}${f.description}`).join('\n')}`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  fault: { type: 'string' },
  profile: { type: 'string' },
  admin: { type: 'boolean' },
  'drain-seconds': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** One sentence for a parseArgs error. */
function usageProblem(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const name = /'([^']+)'/.exec(e.message ?? '')?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `unknown option '${name}'`;
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `option '${name.split(' ')[0]}' needs a value`;
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `unexpected argument '${name}'`;
  return (e.message ?? String(error)).split('\n')[0]!;
}

/** Run `serve` with its arguments; resolves with the exit code once the gateway stopped. */
export async function serveMain(argv: string[]): Promise<number> {
  let values: { port?: string; host?: string; config?: string; fault?: string; profile?: string; admin?: boolean; 'drain-seconds'?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }));
  } catch (error) {
    console.error(`pagi-conform serve: ${usageProblem(error)}; run 'pagi-conform serve --help' for the options.`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 8080 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`pagi-conform serve: --port must be an integer from 0 to 65535, not '${values.port}'.`);
    return 2;
  }
  const drainSeconds = values['drain-seconds'] === undefined ? undefined : Number(values['drain-seconds']);
  if (drainSeconds !== undefined && !(Number.isFinite(drainSeconds) && drainSeconds >= 0)) {
    console.error(`pagi-conform serve: --drain-seconds must be a number of seconds, 0 or more, not '${values['drain-seconds']}'.`);
    return 2;
  }
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      port,
      host: values.host ?? '127.0.0.1',
      configFile: values.config,
      fault: values.fault,
      profile: values.profile,
      admin: values.admin ?? false,
      log: (line) => console.log(line),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${port} is already in use` : e.code === 'EADDRNOTAVAIL' ? `cannot listen on ${values.host}` : e.message;
    console.error(`pagi-conform serve: ${why.split('\n').join(' ')}`);
    return 2;
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
  for (const line of banner(gateway, values.admin ?? false)) console.log(line);
  const signal = await signalled;
  const deadlineMs = (drainSeconds ?? gateway.config.server.drainSeconds) * 1000;
  console.log(`${signal}: draining (no new connections; requests already received answered within ${deadlineMs / 1000} s)`);
  const { answered, cutOff } = await gateway.drain(deadlineMs, abort.signal);
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  const during = `${answered} request${answered === 1 ? '' : 's'} answered while draining`;
  if (cutOff === 0) {
    console.log(`stopped: ${during}, none cut off`);
    return 0;
  }
  console.log(`stopped: ${during}, ${cutOff} request${cutOff === 1 ? '' : 's'} cut off ${abort.signal.aborted ? 'by a second signal' : `at the drain deadline (${deadlineMs / 1000} s)`}`);
  return 1;
}

/** What an integrator needs to start: where, as whom (never the secret itself), with which profile and bounds. */
function banner(gateway: Awaited<ReturnType<typeof startGateway>>, admin: boolean): string[] {
  const lines = [`listening on ${gateway.url}`, `base URL ${gateway.baseUrl} (operations under ${gateway.baseUrl}/v1)`];
  for (const m of gateway.config.merchants) {
    lines.push(`merchant ${m.merchantId}, account${m.accounts.length === 1 ? '' : 's'} ${m.accounts.map((a) => a.accountId).join(', ')}; secret source: ${gateway.secretSource}`);
  }
  lines.push(`profile ${gateway.profile.name} ${gateway.profile.version} (${gateway.profileFile})`);
  const { server, limits, store, sessions } = gateway.config;
  lines.push(
    `limits: ${gateway.connectionCap} connections, ${gateway.profile.limits.maxBodyBytes} body bytes, ${limits.maxFormFields} form fields, ${limits.maxJsonKeys} JSON keys, ${limits.maxJsonItems} array elements, depth ${limits.maxDepth}; ` +
      `keeps ${store.maxTransactions} payments, ${sessions.maxSessions} sessions, ${store.maxPayouts} payouts, ${store.maxTokens} tokens (oldest evicted); drain ${server.drainSeconds} s`,
  );
  lines.push(admin ? 'health GET /healthz; admin POST /_admin/reset, GET /_admin/stats' : 'health GET /healthz (admin endpoints off: --admin)');
  if (gateway.fault) lines.push(`fault '${gateway.fault.name}' is on: ${gateway.fault.description}`);
  return lines;
}
