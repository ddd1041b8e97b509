/**
 * Where the kit may send requests: the target's origin, and the hosts the config lists (`allowedHosts`). A URL the
 * target hands over (an issuer page, a form action, a redirect) is data to check; the kit requests it only when
 * this policy allows it. Names are checked again when they resolve: an allowed name whose address is loopback,
 * private, link-local or a cloud metadata address is refused unless that address is listed itself.
 */
import dns from 'node:dns';
import net from 'node:net';
import { OffTargetError } from '../core/types/errors.js';

/** Addresses never connected to for a host other than the target's, unless listed in `allowedHosts`. */
const INTERNAL = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (also 100.100.100.200, a cloud metadata address)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, 169.254.169.254 (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  INTERNAL.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 127], // unspecified and loopback
  ['fc00::', 7], // unique local (fd00:ec2::254, a cloud metadata address)
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  INTERNAL.addSubnet(prefix, bits, 'ipv6');
}

/** Whether an address is loopback, private, link-local, metadata or otherwise internal. */
export function isInternalAddress(address: string): boolean {
  const mapped = /^::ffff:([0-9.]+)$/i.exec(address)?.[1];
  const ip = mapped ?? address;
  const family = net.isIP(ip);
  return family !== 0 && INTERNAL.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

function bare(host: string): string {
  return host.replace(/^\[|\]$/g, '').toLowerCase();
}

/** Whether a host name or address is loopback (`localhost`, 127.0.0.0/8, ::1). */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host);
  if (h === 'localhost') return true;
  const family = net.isIP(h);
  if (family === 4) return h.startsWith('127.');
  return family === 6 && (h === '::1' || /^::ffff:127\./.test(h));
}

/** The default port of a URL's scheme. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** One `allowedHosts` entry: `host`, `host:port`, `*.domain` (any subdomain), an IPv4 or a bracketed IPv6 address. */
interface HostRule {
  host: string;
  wildcard: boolean;
  port?: string;
}

function parseRule(entry: string): HostRule {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:]+)(?::([0-9]{1,5}))?$/.exec(entry.trim());
  const host = bare(m?.[1] ?? entry.trim());
  const wildcard = host.startsWith('*.');
  return { host: wildcard ? host.slice(2) : host, wildcard, ...(m?.[2] ? { port: m[2] } : {}) };
}

function ruleMatches(rule: HostRule, host: string, port: string): boolean {
  if (rule.port && rule.port !== port) return false;
  return rule.wildcard ? host.endsWith(`.${rule.host}`) : host === rule.host;
}

/** Where the kit may send requests. */
export interface EgressPolicy {
  /** Why the kit must not request `url` (one clause), or undefined when it may. */
  refusal(url: string): string | undefined;
  /** Why the kit must not connect to `address`, which `host` resolved to, or undefined when it may. */
  addressRefusal(host: string, address: string): string | undefined;
  /** A `lookup` for sockets: resolves like `dns.lookup`, then fails for an address `addressRefusal` refuses. */
  lookup: net.LookupFunction;
}

/** The policy of a run against `baseUrl` with the config's `allowedHosts`. */
export function egressPolicy(baseUrl: string, allowedHosts: readonly string[] = []): EgressPolicy {
  const target = new URL(baseUrl);
  const targetHost = bare(target.hostname);
  const rules = allowedHosts.map(parseRule);
  const listedAddress = (address: string) => rules.some((r) => !r.wildcard && r.host === bare(address));
  const policy: EgressPolicy = {
    refusal(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return `${url} is not an absolute URL`;
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
        return `${parsed.protocol} URLs are never requested`;
      if (parsed.origin === target.origin) return undefined;
      const host = bare(parsed.hostname);
      if (rules.some((r) => ruleMatches(r, host, portOf(parsed)))) return undefined;
      const internal = isInternalAddress(host)
        ? ' (an internal address: loopback, private, link-local or metadata)'
        : '';
      return `${parsed.origin} is neither the target's origin ${target.origin} nor a host listed in allowedHosts${internal}`;
    },
    addressRefusal(host, address) {
      if (bare(host) === targetHost || !isInternalAddress(address) || listedAddress(address)) return undefined;
      return `${host} resolves to ${address}, an internal address (loopback, private, link-local or metadata) not listed in allowedHosts`;
    },
    lookup(hostname, options, callback) {
      dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = addresses as dns.LookupAddress[];
        const refused = list.map((a) => policy.addressRefusal(hostname, a.address)).find(Boolean);
        if (refused) return callback(new OffTargetError(refused), '', 0);
        if ((options as dns.LookupOptions).all)
          return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      });
    },
  };
  return policy;
}
