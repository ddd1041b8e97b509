/**
 * Notifications to `notify_url` as the profile's `notifications` section says: method, body media type,
 * signature, attempts with exponential backoff until an acknowledging status or `maxAttempts`, a timeout per
 * attempt. Deliveries run in the background: a response is never held back by them. Every attempt is logged.
 */
import { setMaxListeners } from 'node:events';
import type { OperationKey } from '../core/model.js';
import type { Profile } from '../core/profile/load.js';
import { sign } from '../core/signing.js';
import { encodeForm } from '../core/codecs/form.js';
import { fillNotification } from '../core/profile/notification-shape.js';

/** One delivery attempt, as logged. */
export interface NotificationAttempt {
  kind: 'payment' | 'payout';
  /** order_no of a payment, request_id of a payout. */
  key: string;
  url: string;
  attempt: number;
  status?: number;
  error?: string;
  delivered: boolean;
  at: string;
}

/** A notification to deliver. */
export interface Notification {
  kind: 'payment' | 'payout';
  key: string;
  url: string;
  /** The fields of the profile's `bodyFrom` response, without signature (the body, or what its own shape is filled from). */
  body: Record<string, unknown>;
  secret: string;
  /** The merchant account whose secret signs it (what the journal keeps instead of the secret). */
  merchantId?: string;
  accountId?: string;
}

/** Told when a notification is queued and when it is settled (delivered or given up; not when stopped). */
export interface NotificationTracker {
  queued(n: Notification): void;
  settled(n: Notification): void;
}

const KEEP_ATTEMPTS = 2000;

/** Sends notifications in the background. */
export class Notifier {
  private readonly recent: NotificationAttempt[] = [];
  private readonly pending = new Set<Promise<void>>();
  /** Pending backoff waits: timer → wake-up. */
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  /** Aborts every attempt in flight; each attempt listens to it (any number at once: no listener limit). */
  private readonly stop = (() => {
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    return controller;
  })();
  /** Told of queued and settled notifications (the journal of `serve --data`). */
  tracker: NotificationTracker | undefined;

  constructor(
    private readonly profile: Profile,
    private readonly log: (line: string) => void,
    private readonly enabled: boolean,
    /** False only under a fault: notifications go without `encryption_data`. */
    private readonly signed = true,
    /** Only under a fault: rewrites each notification before it is encoded. */
    private readonly rewrite?: (n: Notification) => Notification,
  ) {}

  /** Queue a notification; returns at once. */
  send(queued: Notification): void {
    const n = this.rewrite ? this.rewrite(queued) : queued;
    if (!this.enabled || this.stop.signal.aborted || !/^https?:\/\//i.test(n.url)) return;
    const { body, contentType } = this.encode(n);
    this.tracker?.queued(n);
    const run = this.deliver(n, body, contentType)
      .then(() => {
        // Stopped before it was delivered or given up: it stays pending (resent by the next start).
        if (!this.stop.signal.aborted) this.tracker?.settled(n);
      })
      .finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  /** The latest attempts, oldest first. */
  attempts(): readonly NotificationAttempt[] {
    return this.recent;
  }

  /** Resolves when every queued notification is delivered or given up. */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Abort deliveries in flight and drop pending retries. */
  close(): void {
    this.stop.abort();
    for (const [t, wake] of this.timers) {
      clearTimeout(t);
      wake();
    }
    this.timers.clear();
  }

  private encode(n: Notification): { body: string; contentType: string } {
    const cfg = this.profile.notifications;
    const kind = cfg.kinds[n.kind];
    const op: OperationKey = kind.bodyFrom;
    const response: Record<string, unknown> = { ...n.body };
    delete response.encryption_data;
    // The gateway's own shape (ownShape), filled from the response; else the response's fields as they are.
    const body = kind.ownShape
      ? fillNotification(kind.ownShape.template as Parameters<typeof fillNotification>[0], response)
      : response;
    const direction = cfg.signature === 'asResponse' ? 'response' : 'request';
    const signature =
      cfg.signature === 'none' || !this.signed
        ? undefined
        : sign(this.profile.signature, direction, op, body, n.secret);
    if (signature !== undefined) body.encryption_data = signature;
    return cfg.mediaType === 'json'
      ? { body: JSON.stringify(body), contentType: 'application/json; charset=utf-8' }
      : { body: encodeForm(body), contentType: 'application/x-www-form-urlencoded; charset=utf-8' };
  }

  private async deliver(n: Notification, body: string, contentType: string): Promise<void> {
    const { retry, acknowledgement, method } = this.profile.notifications;
    let delay = retry.initialDelayMs;
    for (let attempt = 1; attempt <= retry.maxAttempts && !this.stop.signal.aborted; attempt++) {
      if (attempt > 1) {
        await this.sleep(delay);
        delay *= retry.factor;
        if (this.stop.signal.aborted) return;
      }
      const record: NotificationAttempt = {
        kind: n.kind,
        key: n.key,
        url: n.url,
        attempt,
        delivered: false,
        at: new Date().toISOString(),
      };
      const attemptSignal = this.attemptSignal(retry.timeoutMs);
      try {
        const res = await fetch(n.url, {
          method,
          headers: { 'content-type': contentType },
          body,
          redirect: 'manual',
          signal: attemptSignal.signal,
        });
        await res.body?.cancel().catch(() => undefined);
        record.status = res.status;
        record.delivered = res.status >= acknowledgement.statusMin && res.status <= acknowledgement.statusMax;
      } catch (error) {
        record.error =
          (error as Error).name === 'TimeoutError'
            ? 'timed out'
            : (((error as Error).cause as Error | undefined)?.message ?? (error as Error).message);
      } finally {
        attemptSignal.done();
      }
      this.keep(record);
      const outcome = record.delivered
        ? 'delivered'
        : record.status !== undefined
          ? 'not acknowledged'
          : `failed (${record.error})`;
      this.log(
        `notify ${n.kind} ${n.key} attempt ${attempt}/${retry.maxAttempts} -> ${record.status ?? '-'} ${outcome}`,
      );
      if (record.delivered) return;
    }
  }

  /**
   * The signal of one attempt: aborted after `ms` (a TimeoutError) or when the notifier stops. A timer of its own,
   * held until `done`: an `AbortSignal.timeout` inside `AbortSignal.any` can be garbage-collected before it fires
   * (Node.js issue 57736), leaving an unanswered attempt waiting for ever.
   */
  private attemptSignal(ms: number): { signal: AbortSignal; done: () => void } {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new DOMException('attempt timed out', 'TimeoutError')), ms);
    const onStop = () => controller.abort(this.stop.signal.reason);
    this.stop.signal.addEventListener('abort', onStop, { once: true });
    return {
      signal: controller.signal,
      done: () => {
        clearTimeout(timer);
        this.stop.signal.removeEventListener('abort', onStop);
      },
    };
  }

  private keep(record: NotificationAttempt): void {
    this.recent.push(record);
    if (this.recent.length > KEEP_ATTEMPTS) this.recent.splice(0, this.recent.length - KEEP_ATTEMPTS);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }
}
