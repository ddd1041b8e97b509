/**
 * The deep family's results on a fixed seed, with what varies from run to run (order numbers, transaction ids,
 * signatures, UUIDs, times, exchange ids, durations) replaced by placeholders: a change to the engine's or the deep
 * family's hot path must leave this output the same (`diff` it before and after). Runs `--only deep` at the given
 * depth against the reference gateway, clean and with each deep-only fault of the self-test (the faults' findings
 * carry the shrunk cases, their seeds and fast-check paths). The evidence of the summary finding (DEEP_SUMMARY) is
 * left out: it is the operation's last answered exchange, which depends on the order in which answers arrive.
 *
 * `node bin/run-ts.js bench/deep-fingerprint.ts [depth=300] [seed=11] > fingerprint.json`
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAULTS } from '../gateway/faults.js';
import { startGateway } from '../gateway/index.js';
import { run } from '../kit/index.js';

const depth = Number(process.argv[2] ?? '300');
const seed = Number(process.argv[3] ?? '11');

/** Placeholders for the values that differ between two runs of the same requests. */
function normalise(value: unknown): unknown {
  if (typeof value === 'string')
    return (
      value
        .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
        .replace(/\b[0-9a-f]{64}\b/gi, '<hex64>')
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)/g, '<time>')
        .replace(/PAGI(-[A-Za-z0-9]+)+/g, '<order>')
        .replace(/\b[A-Za-z]+#[A-Za-z0-9]+\.\d+\b/g, '<exchange>')
        // the reference gateway's ids (transactions, references, recurring ids): a date, 4 hex digits, a counter
        .replace(/\d{8}[0-9A-F]{4}\d{6}/g, '<id>')
        // the same id masked as a card number where its digits happen to pass the Luhn check (about one in ten)
        .replace(/(?<=\bT|\bRC-)\d{6}\*{8}\d{4}\b/g, '<id>')
        .replace(/\b\d{14}\b/g, '<timestamp>')
        .replace(/127\.0\.0\.1:\d+/g, '<host>')
    );
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !['durationMs', 'startedAt', 'time', 'timings', 'sha256', 'date'].includes(k))
        .map(([k, v]) => [k, normalise(v)]),
    );
  return value;
}

const out: Record<string, unknown> = {};
for (const fault of [undefined, ...FAULTS.filter((f) => f.kind === 'fault' && f.deepOperation).map((f) => f.name)]) {
  const gateway = await startGateway({ port: 0, host: '127.0.0.1', ...(fault ? { fault } : {}) });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-deep-fingerprint-'));
  try {
    const merchant = gateway.config.merchants[0]!;
    const account = merchant.accounts[0]!;
    const result = await run({
      target: gateway.baseUrl,
      merchantId: merchant.merchantId,
      accountId: account.accountId,
      secret: account.secret,
      failOn: 'profile',
      reporter: [],
      out: dir,
      seed,
      depth,
      only: ['deep'],
    });
    out[fault ?? 'clean'] = {
      verdict: result.verdict,
      checks: result.checks
        .map((c) => ({
          check: `${c.operation}/${c.checkId}`,
          status: c.status,
          findings: normalise(
            c.findings.map(({ evidence, ...f }) => (f.code === 'DEEP_SUMMARY' ? f : { ...f, evidence })),
          ),
        }))
        .sort((a, b) => a.check.localeCompare(b.check)),
    };
  } finally {
    await gateway.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
console.log(JSON.stringify({ depth, seed, runs: out }, null, 1));
