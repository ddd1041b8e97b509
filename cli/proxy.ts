/**
 * `pagi-conform proxy`: the validating proxy between a merchant's application and a gateway (proxy/server.ts). It
 * prints a line per exchange (operation, status, findings by side), and on SIGINT or SIGTERM judges the invariants
 * against the ledger of the observed traffic and writes the reports (`--reporter`, `--out`) and, with `--pact FILE`,
 * a Pact V4 file of the observed interactions. Without `--upstream` it fronts the embedded reference gateway.
 */
import path from 'node:path';
import { optionLines, parseCommandLine, resolveOptions } from '../core/config/load.js';
import { type RunOptions, UsageError } from '../core/config/options.js';
import { guardStandardStreams, protectOutput } from '../core/mask.js';
import type { Finding, RunResult } from '../core/model.js';
import { loadProfile } from '../core/profile/load.js';
import { kitSpec } from '../core/spec/load.js';
import { EXIT } from '../core/types/errors.js';
import { maskRulesFor } from '../engine/evidence.js';
import { INTERRUPTS, type Interrupt } from '../engine/interrupts.js';
import { sandboxCredentials } from '../pact/interactions.js';
import { PactRecorder } from '../proxy/pact-out.js';
import { type RunningProxy, startProxy } from '../proxy/server.js';
import { type Judged, ProxySession, SIDE_WORDS } from '../proxy/session.js';

const ABOUT = `usage: pagi-conform proxy [--upstream URL] [--port N] [--profile P] [--config C] [--notify] [--pact FILE]

A validating proxy: point your application's base URL at it. Every request is forwarded unchanged to the upstream
gateway (and nowhere else) and every answer passed back unchanged; each exchange is judged, its findings told apart
as "your request" (the merchant's) and "the gateway's answer". Stop it with Ctrl-C (SIGINT) or SIGTERM: it judges the
payment invariants on the observed traffic and writes the reports. Credentials (merchantId, accountId, secret) come
from the config file or PAGI_MERCHANT_ID, PAGI_ACCOUNT_ID, PAGI_SECRET (default with no --upstream: the embedded
gateway's).

options:`;

/** `pagi-conform proxy --help`, generated from the table. */
export function proxyHelp(): string {
  return [ABOUT, ...optionLines('proxy')].join('\n');
}

/** One line of a finding, its side first. */
export function findingLine(f: Finding): string {
  return `  ${SIDE_WORDS[f.side ?? 'answer']}: ${f.code} (${f.severity}${f.requirementIds.length ? `, ${f.requirementIds.join(' ')}` : ''}) ${f.checkId}: ${f.message}`;
}

/** The console line of one judged exchange, and its findings' lines. */
export function exchangeLines(j: Judged): string[] {
  const status = j.exchange.response
    ? `HTTP ${j.exchange.response.status}`
    : `no answer (${j.exchange.error?.message})`;
  const head = `${j.exchange.id.padEnd(22)} ${j.operation.padEnd(16)} ${status.padEnd(9)} your request: ${j.request.length}, the gateway's answer: ${j.answer.length}`;
  return [head, ...[...j.request, ...j.answer].map(findingLine)];
}

/** A proxy composed: the session, the server, the upstream (the embedded gateway when none is given). */
export interface ProxyRun {
  proxy: RunningProxy;
  session: ProxySession;
  upstream: string;
  /** Stop: judge the ledger, write the reports and the pact; the results and the files written. */
  stop(): Promise<{ result: RunResult; files: string[]; ledger: Finding[] }>;
}

/** Start a proxy from resolved options. `print` receives every console line, `onJudged` every judged exchange. */
export async function openProxy(
  options: RunOptions,
  print: (line: string) => void = console.log,
  commandLine: string[] = ['pagi-conform', 'proxy'],
  onJudged?: (judged: Judged) => void,
): Promise<ProxyRun> {
  const loaded = loadProfile(options.profile);
  const profile = loaded.profile;
  let upstream = options.upstream;
  let closeGateway: (() => Promise<void>) | undefined;
  let credentials: { merchantId?: string; accountId?: string; secret?: string } = options;
  if (!upstream) {
    const { startGateway } = await import('../gateway/index.js');
    const gateway = await startGateway({ profile: loaded.file });
    upstream = gateway.url;
    closeGateway = () => gateway.close();
    credentials = { ...sandboxCredentials(), ...Object.fromEntries(Object.entries(credentials).filter(([, v]) => v)) };
    print(`pagi-conform proxy: the embedded reference gateway (${profile.name}) listens on ${upstream}`);
  }
  const cards = [...profile.payments.testCards.approve, ...profile.payments.testCards.decline];
  const rules = maskRulesFor(profile, credentials.secret ?? '', cards);
  const session = new ProxySession({
    spec: kitSpec(),
    loaded,
    ...(credentials.secret ? { secret: credentials.secret } : {}),
    ...(credentials.merchantId ? { merchantId: credentials.merchantId } : {}),
    ...(credentials.accountId ? { accountId: credentials.accountId } : {}),
    rules,
    failOn: options.failOn,
    upstream,
    commandLine,
  });
  const pact = options.proxyPact ? new PactRecorder(options.profile, rules, profile) : undefined;
  const proxy = await startProxy({
    session,
    upstream,
    port: options.proxyPort,
    timeoutMs: options.timeout,
    maxResponseBytes: options.maxResponseBytes,
    notify: options.notify,
    notifyHosts: options.notifyHosts,
    onJudged: (j) => {
      pact?.add(j);
      onJudged?.(j);
      for (const line of exchangeLines(j)) print(line);
    },
    onNotification: (line, findings) => {
      print(line);
      for (const f of findings) print(findingLine(f));
    },
    onNote: (line) => print(`note: ${line}`),
  });
  print(
    `pagi-conform proxy: listening on ${proxy.url}, forwarding to ${upstream} only${options.notify ? '; notify_url rewritten to the proxy' : ''}. Point your application's base URL at ${proxy.url}; stop with Ctrl-C.`,
  );
  if (!credentials.secret) print('note: no secret is configured: request and answer signatures are not judged.');
  return {
    proxy,
    session,
    upstream,
    async stop() {
      await proxy.close();
      await closeGateway?.();
      const ledger = session.judgeLedger();
      for (const f of ledger) print(findingLine(f));
      const result = session.results();
      const { createReporters } = await import('../reporters/index.js');
      const files: string[] = [];
      for (const reporter of createReporters({ reporter: options.reporter, signKey: undefined })) {
        const written = await reporter.onRunEnd?.(result, { outDir: options.out, exchanges: session.records(), files });
        if (Array.isArray(written)) files.push(...written);
      }
      if (pact && options.proxyPact) files.push(pact.write(options.proxyPact));
      return { result, files, ledger };
    },
  };
}

/** Run `pagi-conform proxy`; resolves with the verdict's exit code once stopped by SIGINT or SIGTERM. */
export async function proxyMain(argv: string[]): Promise<number> {
  const { options: explicit } = parseCommandLine('proxy', argv, false);
  if (explicit.help) {
    console.log(proxyHelp());
    return EXIT.ok;
  }
  const options = resolveOptions(explicit, process.env, 'proxy');
  if (options.upstream && !/^https?:/.test(options.upstream))
    throw new UsageError('--upstream must be an http(s) URL.');
  guardStandardStreams();
  protectOutput({ secrets: options.secret ? [options.secret] : [] });
  const run = await openProxy(options, console.log, ['pagi-conform', 'proxy', ...argv]);
  const signal = await new Promise<Interrupt>((resolve) => {
    for (const s of Object.keys(INTERRUPTS) as Interrupt[]) process.once(s, () => resolve(s));
  });
  console.error(`pagi-conform proxy: ${signal}: stopping; judging the ledger and writing the reports.`);
  const { result, files } = await run.stop();
  if (files.length && !options.reporter.includes('console'))
    console.log(`reports: ${files.map((f) => path.relative(process.cwd(), f) || f).join(', ')}`);
  else if (options.proxyPact) console.log(`pact: ${options.proxyPact}`);
  return result.exitCode === EXIT.inconclusive ? EXIT.ok : result.exitCode;
}
