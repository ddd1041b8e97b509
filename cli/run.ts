/** `pagi-conform run`: parse the options, run, print where the reports are, exit with the verdict's code. */
import path from 'node:path';
import { helpText, parseArgv, resolveOptions } from '../core/config/load.js';
import type { RunOptions } from '../core/config/options.js';
import { guardStandardStreams, protectOutput } from '../core/mask.js';
import { INTERRUPTS, type Interrupt } from '../engine/interrupts.js';
import { EXIT } from '../core/types/errors.js';

async function list(options: RunOptions): Promise<number> {
  const { prepareKitRun } = await import('../kit/kit.js');
  const { listChecks, listChecksJson } = await import('../engine/list.js');
  const { spec, registry, plan } = await prepareKitRun(options);
  console.log(options.format === 'json' ? listChecksJson(spec, registry, plan) : listChecks(spec, registry, plan));
  return EXIT.ok;
}

/**
 * Run the command with its arguments; returns the exit code (0, 1 or 3; 130 or 143 when interrupted), or throws the
 * KitError that stopped it (cli/main.ts prints it and exits with its class's code).
 */
export async function runMain(argv: string[]): Promise<number> {
  // SIGINT/SIGTERM: stop sending, write the reports of the checks run so far, exit 130/143. A second one exits at
  // once. A signal while the run is being prepared stops it before anything is sent (the reports still say so).
  const stop = new AbortController();
  const onSignal = (signal: Interrupt) => {
    if (stop.signal.aborted) process.exit(INTERRUPTS[signal]);
    console.error(
      `pagi-conform: ${signal}: stopping; writing the reports of the checks run so far (a second signal exits at once).`,
    );
    stop.abort(signal);
  };
  const handlers = (Object.keys(INTERRUPTS) as Interrupt[]).map((signal) => [signal, () => onSignal(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  const release = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
  try {
    const explicit = parseArgv(argv);
    if (explicit.help) {
      console.log(helpText());
      return EXIT.ok;
    }
    const options = resolveOptions(explicit);
    // For the rest of the command, whatever it prints passes through maskOutgoing with the configured secret and cards.
    guardStandardStreams();
    protectOutput({ secrets: options.secret ? [options.secret] : [], cards: Object.values(options.cards ?? {}) });
    if (options.list) return await list(options);
    const { runKit } = await import('../kit/kit.js');
    const { result, files } = await runKit(options, {
      commandLine: ['pagi-conform', 'run', ...argv],
      stop: stop.signal,
    });
    // The console reporter lists the files itself, before its verdict line.
    if (files.length && !options.reporter.includes('console'))
      console.log(`reports: ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}`);
    if (result.interrupted) {
      // results.json holds the same code (128 + the signal's number). The suites may still be winding down: exit
      // once the output is flushed, whatever still holds the loop.
      const code = result.exitCode;
      setTimeout(() => process.exit(code), 300).unref();
    }
    return result.exitCode;
  } finally {
    if (!stop.signal.aborted) release();
  }
}
