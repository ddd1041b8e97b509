/**
 * The merchant's notification handler: an HTTP endpoint the gateway sends payment and payout results to
 * (`notify_url`). It reads the JSON body, files it by order number or request id, and acknowledges with 200 (the
 * reference profile's acknowledgement is any 2xx).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running handler: its URL and the notifications it got. */
export interface NotificationHandler {
  url: string;
  /** Bodies received, in arrival order. */
  received: Record<string, unknown>[];
  /** Resolves with the notifications for `key` (order_no or request_id) once there is one, or after `ms`. */
  waitFor(key: string, ms: number): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** Start the handler on a loopback port. */
export async function startNotificationHandler(): Promise<NotificationHandler> {
  const received: Record<string, unknown>[] = [];
  const waiting: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
        res.writeHead(200, { 'content-type': 'text/plain' }).end('OK');
      } catch {
        res.writeHead(400, { 'content-type': 'text/plain' }).end('not JSON');
      }
      for (const wake of waiting.splice(0)) wake();
    });
  });
  const address = await new Promise<AddressInfo>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(server.address() as AddressInfo)),
  );
  const of = (key: string) => received.filter((b) => b.order_no === key || b.request_id === key);
  return {
    url: `http://127.0.0.1:${address.port}/pagi/notify`,
    received,
    async waitFor(key, ms) {
      const end = Date.now() + ms;
      while (!of(key).length && Date.now() < end)
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          setTimeout(resolve, Math.max(0, end - Date.now())).unref();
        });
      return of(key);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
