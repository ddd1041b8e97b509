/**
 * HTTP dispatchers of the kit's sending side: undici only, so a benchmark's plain sender can use them without
 * loading the engine.
 */
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector, ProxyAgent, type Dispatcher } from 'undici';

/** What a dispatcher needs of the transport options (see TransportOptions in client.ts). */
export interface DispatchOptions {
  timeoutMs: number;
  proxy?: string;
  /** Name resolution of the sockets (the run's egress policy checks the addresses). */
  lookup?: LookupFunction;
}

/** Write errors meaning the peer is gone for writing: it answered and closed, or reset the connection. */
const PEER_GONE = new Set(['EPIPE', 'ECONNRESET', 'ECONNABORTED']);

type WriteCallback = (error?: Error | null) => void;
type Writes = {
  _write(chunk: unknown, encoding: BufferEncoding, cb: WriteCallback): void;
  _writev?(chunks: { chunk: unknown; encoding: BufferEncoding }[], cb: WriteCallback): void;
};

/**
 * A gateway may answer a request before its body is sent (a 413 at the declared length, a 400) and close the
 * connection, its own bytes unread: the connection is reset, and a write of the body that follows fails (EPIPE,
 * ECONNRESET). Node destroys a socket whose write failed, and the answer that arrived first, not yet read, is lost
 * with it (one exchange in a few hundred on loopback; always when the write follows the reset). On these sockets a
 * write failing so is dropped instead (the rest of the body with it), so the reading goes on: the answer is read,
 * then the reset ends the connection as a read error, which fails the exchange only when no answer came.
 */
export function keepReadingPastPeerGone(socket: Socket): Socket {
  const s = socket as unknown as Writes;
  let gone = false;
  const guard =
    (cb: WriteCallback): WriteCallback =>
    (error) => {
      if (error && PEER_GONE.has((error as NodeJS.ErrnoException).code ?? '')) {
        gone = true;
        cb();
      } else cb(error);
    };
  const write = s._write;
  const writev = s._writev;
  s._write = function (this: Socket, chunk, encoding, cb) {
    if (gone) cb();
    else write.call(this, chunk, encoding, guard(cb));
  };
  if (writev)
    s._writev = function (this: Socket, chunks, cb) {
      if (gone) cb();
      else writev.call(this, chunks, guard(cb));
    };
  return socket;
}

/** An undici dispatcher for the transport options: CA file, proxy, connect timeout, source address. */
export function createDispatcher(
  transport: DispatchOptions,
  ca: Buffer | undefined,
  localAddress?: string,
): Dispatcher {
  const connect = { ca, timeout: transport.timeoutMs, ...(transport.lookup ? { lookup: transport.lookup } : {}) };
  const source = localAddress ? { localAddress } : {};
  if (transport.proxy) return new ProxyAgent({ uri: transport.proxy, requestTls: connect, ...source });
  const connector = buildConnector(connect);
  return new Agent({
    connect: (options, callback) =>
      connector(options, (error, socket) =>
        error ? callback(error, null) : callback(null, keepReadingPastPeerGone(socket as Socket)),
      ),
    ...source,
  });
}

/** Dispatchers by source address, each made on first use by `createDispatcher`. */
export interface DispatcherPool {
  for(localAddress: string | undefined): Dispatcher;
  close(): Promise<void>;
}

/** A DispatcherPool over one transport (one client, or a benchmark's plain sender). */
export function dispatcherPool(transport: DispatchOptions, ca?: Buffer): DispatcherPool {
  const dispatchers = new Map<string, Dispatcher>();
  return {
    for(localAddress) {
      const key = localAddress ?? '';
      let d = dispatchers.get(key);
      if (!d) dispatchers.set(key, (d = createDispatcher(transport, ca, localAddress)));
      return d;
    },
    async close() {
      await Promise.all([...dispatchers.values()].map((d) => d.close()));
      dispatchers.clear();
    },
  };
}
