/**
 * HTTP dispatchers of the kit's sending side: undici only, so a benchmark's plain sender can use them without
 * loading the engine.
 */
import type { LookupFunction } from 'node:net';
import { Agent, ProxyAgent, type Dispatcher } from 'undici';

/** What a dispatcher needs of the transport options (see TransportOptions in client.ts). */
export interface DispatchOptions {
  timeoutMs: number;
  proxy?: string;
  /** Name resolution of the sockets (the run's egress policy checks the addresses). */
  lookup?: LookupFunction;
}

/** An undici dispatcher for the transport options: CA file, proxy, connect timeout, source address. */
export function createDispatcher(
  transport: DispatchOptions,
  ca: Buffer | undefined,
  localAddress?: string,
): Dispatcher {
  const connect = { ca, timeout: transport.timeoutMs, ...(transport.lookup ? { lookup: transport.lookup } : {}) };
  const source = localAddress ? { localAddress } : {};
  return transport.proxy
    ? new ProxyAgent({ uri: transport.proxy, requestTls: connect, ...source })
    : new Agent({ connect, ...source });
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
