/** The whole run against the reference gateway is CONFORMANT with no failed check of any severity. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';

describe('a full run against the embedded reference gateway', () => {
  it('is CONFORMANT with no failed check of any severity', { timeout: 240_000 }, async () => {
    const run = await runCli(['--reporter', 'json', '--fail-on', 'profile']);
    const results = run.results();
    const failed = results.checks
      .filter((c) => c.status === 'failed')
      .map((c) => `${c.operation}/${c.checkId}: ${c.findings[0]?.message}`);
    const mustSkipped = results.checks
      .filter((c) => c.status === 'skipped' && c.severity === 'must')
      .map((c) => `${c.operation}/${c.checkId}: ${c.reason}`);
    expect(failed).toEqual([]);
    expect(mustSkipped).toEqual([]);
    expect(results.warnings).toEqual([]);
    expect(results.verdict).toBe('CONFORMANT');
    expect(run.code).toBe(0);
  });
});
