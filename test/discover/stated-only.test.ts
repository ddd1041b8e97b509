/**
 * Discovery states only what the probes decided (issue #34, point 1): a search that finds nothing, or a part of a set,
 * decides nothing. The reference gateway serves the reference profile with its review triggers beyond what the
 * search tries (an amount above it, an e-mail domain off the list); the draft leaves the undecided triggers out and
 * states the ones found, never a `null`, an empty list or the search's end as if found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { type RunningGateway, startGateway } from '../../gateway/index.js';
import { SPEC_DIR } from '../../core/spec/paths.js';
import { type DiscoveryResult, discoverProfile } from '../../discover/index.js';
import { discoverersFor, servedDiscovery } from '../support/discover-served.js';
import { tempDir } from '../support/temp.js';

const dir = tempDir('pagi-discover-stated-');
const gateways: RunningGateway[] = [];
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
});

/** Serve the reference profile with its review triggers set to `triggers`; discover it with the payments row. */
async function discoverTriggers(name: string, triggers: Record<string, unknown>): Promise<DiscoveryResult> {
  const p = parse(fs.readFileSync(path.join(SPEC_DIR, 'profiles', 'reference.yaml'), 'utf8'));
  p.name = name;
  p.review.triggers = triggers;
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, stringify(p));
  const gw = await startGateway({ port: 0, host: '127.0.0.1', profile: file });
  gateways.push(gw);
  return discoverProfile({ ...servedDiscovery(gw, 'STD'), table: discoverersFor(['payments']) });
}

/** The value the draft states at `at` (undefined: left out or open). */
const statedAt = (found: DiscoveryResult, at: string) => {
  const point = found.points.find((p) => p.path === at);
  return point && !point.unknown ? { value: point.value } : undefined;
};
const openAt = (found: DiscoveryResult, at: string) => found.points.find((p) => p.path === at && p.unknown);

describe('review triggers beyond the search', () => {
  it('an amount beyond the search, a domain of the list: the domain stated, the amount left out (not the search’s end)', {
    timeout: 120_000,
  }, async () => {
    const found = await discoverTriggers('beyond-amount', {
      amountAtLeast: '5000000.00',
      shopperEmailDomains: ['review.example'],
    });
    expect(statedAt(found, 'review.triggers.shopperEmailDomains')).toEqual({ value: ['review.example'] });
    expect(statedAt(found, 'review.triggers.amountAtLeast')).toBeUndefined();
    expect(openAt(found, 'review.triggers.amountAtLeast')).toBeDefined();
  });

  it('an amount found, a domain off the list: the amount stated, the domains left out (not an empty list)', {
    timeout: 120_000,
  }, async () => {
    const found = await discoverTriggers('off-list-domain', {
      amountAtLeast: '5000.00',
      shopperEmailDomains: ['screen.example'],
    });
    expect(statedAt(found, 'review.triggers.amountAtLeast')).toEqual({ value: '5000.00' });
    expect(statedAt(found, 'review.triggers.shopperEmailDomains')).toBeUndefined();
    expect(openAt(found, 'review.triggers.shopperEmailDomains')).toBeDefined();
  });

  it('nothing of the search holds: the triggers left out, never null (the gateway never holds)', {
    timeout: 120_000,
  }, async () => {
    const found = await discoverTriggers('nothing-found', {
      amountAtLeast: '5000000.00',
      shopperEmailDomains: ['screen.example'],
    });
    expect(statedAt(found, 'review.triggers')).toBeUndefined();
    expect(openAt(found, 'review.triggers')).toBeDefined();
  });
});
