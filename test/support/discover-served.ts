/**
 * In-process discovery of a gateway the tests serve: the options every such discovery shares (the gateway's first
 * merchant and account, a loopback transport, the test security code and payment methods), and the table of
 * discoverers narrowed to some rows and the rows they read.
 */
import type { DiscoverOptions } from '../../discover/index.js';
import { DISCOVERERS } from '../../discover/index.js';
import type { Discoverer } from '../../discover/context.js';
import type { RunningGateway } from '../../gateway/index.js';

/** The options of a discovery of `gw` with its orders numbered `orderPrefix…`, silent. */
export function servedDiscovery(gw: RunningGateway, orderPrefix: string): DiscoverOptions {
  const merchant = gw.config.merchants[0]!;
  const account = merchant.accounts[0]!;
  return {
    baseUrl: gw.baseUrl,
    merchantId: merchant.merchantId,
    accountId: account.accountId,
    secret: account.secret,
    transport: { timeoutMs: 10_000, maxResponseBytes: 8 * 1024 * 1024, concurrency: 2, rate: 0 },
    cardSecurityCode: '123',
    orderPrefix,
    paymentMethods: { valid: gw.config.apm.paymentMethods, unknown: 'PAGI_KIT_UNKNOWN' },
    budget: 3000,
    log: () => {},
  };
}

/** The discoverers of rows `ids` and of every row they read (`after`), in the table's order. */
export function discoverersFor(ids: readonly string[]): Discoverer[] {
  const wanted = new Set<string>();
  const add = (id: string) => {
    if (wanted.has(id)) return;
    wanted.add(id);
    for (const a of DISCOVERERS.find((d) => d.id === id)!.after) add(a);
  };
  for (const id of ids) add(id);
  return DISCOVERERS.filter((d) => wanted.has(d.id));
}
