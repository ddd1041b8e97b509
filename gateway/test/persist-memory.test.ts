/**
 * Memory bounded by bytes (issue: 3,000 payouts with a 1 MB `reason` each were all accepted and held, 3.4 GB of
 * heap): `serve --data DIR` refuses each of them as invalidInput (a field over the profile's limits.maxFieldLength)
 * and its peak resident memory stays under 1 GB.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RunningGateway } from '../index.js';
import { serve } from '../../test/support/cli.js';
import { tempDir } from '../../test/support/temp.js';
import * as h from './helpers.js';

/** The process's peak resident memory in bytes (VmHWM of /proc/PID/status). */
function peakRss(pid: number): number {
  const kib = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kib) * 1024;
}

describe.skipIf(process.platform !== 'linux')('serve --data DIR: 3,000 payouts with a 1 MB field', () => {
  it('are refused as invalidInput, and the gateway stays under 1 GB of resident memory', async () => {
    const gw = await serve(['--data', tempDir('pagi-memory-')]);
    try {
      const at = { url: gw.url } as RunningGateway;
      const reason = 'r'.repeat(1_000_000);
      let next = 0;
      const statuses = new Map<number, number>();
      const client = async () => {
        while (next < 3000) {
          next += 1;
          const res = await h.call(at, 'payout', h.payoutBody({ reason }));
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 4 }, client));
      expect(Object.fromEntries(statuses)).toEqual({ [h.profile.errors.kinds.invalidInput.status]: 3000 });
      const peak = peakRss(gw.child.pid!);
      console.log(`peak resident memory after 3,000 payouts of 1 MB: ${(peak / 2 ** 20).toFixed(0)} MiB`);
      expect(peak).toBeLessThan(2 ** 30);
      expect((await h.call(at, 'payout', h.payoutBody())).status).toBe(200); // still serving
    } finally {
      await gw.stop();
    }
  }, 300_000);
});
