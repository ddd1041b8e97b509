/**
 * The run's ledger: every exchange the worker's client made with an operation of the interface (in the order the
 * answers came) and every notification the kit received, each with whether its request authenticates. Probes add
 * to it through the client; the integrity family's checks read it (suites/ledger.ts types its entries). The engine
 * only records: what an answer means is the checks' business.
 */
import type { Exchange, LedgerEntry, LedgerNotification, OperationKey, RunLedgerView } from '../core/model.js';

/** Exchanges the ledger holds at most; beyond them it counts what it dropped (a deep run's tail). */
export const LEDGER_MAX_ENTRIES = 5_000;
/** Response bytes the ledger's exchanges hold at most. */
export const LEDGER_MAX_BYTES = 64 * 1024 * 1024;

/** How the client judged a request it sent: whether it authenticates, and whether it went to the operation's path. */
export interface LedgerMark {
  authenticated: boolean;
  /** False for a request sent to another path or with another method than the operation's. */
  atOperation: boolean;
}

/** The ledger of one worker's run. */
export class RunLedger implements RunLedgerView {
  readonly entries: LedgerEntry[] = [];
  readonly notifications: LedgerNotification[] = [];
  dropped = 0;
  private bytes = 0;
  private seq = 0;
  private readonly seen = new Set<string>();

  /** Record an exchange with an operation (never an `external` page, never a request sent elsewhere). */
  add(exchange: Exchange, mark: LedgerMark): void {
    if (exchange.operation === 'external' || !mark.atOperation || exchange.incoming) return;
    const size = exchange.response?.bytes?.length ?? exchange.response?.bodyText.length ?? 0;
    if (this.entries.length >= LEDGER_MAX_ENTRIES || this.bytes + size > LEDGER_MAX_BYTES) {
      this.dropped++;
      return;
    }
    this.bytes += size;
    const answeredAt = performance.now();
    this.entries.push({
      seq: ++this.seq,
      operation: exchange.operation as OperationKey,
      exchange,
      authenticated: mark.authenticated,
      sentAt: answeredAt - exchange.durationMs,
      answeredAt,
    });
  }

  /** Record notifications the kit's receiver got (each once, whoever asked for it). */
  addNotifications(received: readonly Exchange[]): void {
    for (const x of received) {
      if (this.seen.has(x.id)) continue;
      this.seen.add(x.id);
      this.notifications.push({ seq: ++this.seq, exchange: x });
    }
  }
}
