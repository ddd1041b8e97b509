/** `pagi-conform serve`: start the reference gateway from the command line. */
import { parseArgs } from 'node:util';
import { FAULTS, startGateway } from './index.js';

const USAGE = `usage: pagi-conform serve [--port N] [--host H] [--config FILE] [--fault NAME] [--profile FILE]

Start the reference gateway of the Payment Acquiring Gateway Interface.

options:
  --port N          listen port (default 8080; 0 picks a free port)
  --host H          listen address (default 127.0.0.1)
  --config FILE     gateway configuration (merchants, secrets, addresses, base URL),
                    read over gateway/config.default.yaml
  --fault NAME      switch on one named variant: a deviation from the interface,
                    or a neutral change the interface allows (marked neutral)
  --profile FILE    profile file or name under spec/profiles (default: reference)
  --help            show this text

faults:
${FAULTS.map((f) => `  ${f.name.padEnd(36)}${f.kind === 'neutral' ? '(neutral) ' : ''}${f.description}`).join('\n')}`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  config: { type: 'string' },
  fault: { type: 'string' },
  profile: { type: 'string' },
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
  let values: { port?: string; host?: string; config?: string; fault?: string; profile?: string; help?: boolean };
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
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  try {
    gateway = await startGateway({
      port,
      host: values.host ?? '127.0.0.1',
      configFile: values.config,
      fault: values.fault,
      profile: values.profile,
      log: (line) => console.log(line),
    });
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    const why = e.code === 'EADDRINUSE' ? `port ${port} is already in use` : e.code === 'EADDRNOTAVAIL' ? `cannot listen on ${values.host}` : e.message;
    console.error(`pagi-conform serve: ${why.split('\n').join(' ')}`);
    return 2;
  }
  console.log(`listening on ${gateway.url}`);
  if (gateway.fault) console.log(`fault '${gateway.fault.name}' is on: ${gateway.fault.description}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await gateway.close();
  console.log('stopped');
  return 0;
}
