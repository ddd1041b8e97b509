/**
 * HAR 1.2 (`<out>/exchanges.har`) of every exchange of the run, masked (built from the recorded evidence only), for
 * replay and inspection in browsers' network panels, proxies and API tools. Each entry names its exchange and the
 * checks whose findings point at it (`comment`, and `_pagi`: HAR's custom-field convention). Response bodies are the
 * recorded excerpts (a note in `content.comment` says when one was cut).
 */
import type { ExchangeRecord, RunResult } from '../core/model.js';
import { checkName } from './format.js';
import { fileReporter } from './file.js';
import type { KitReporter } from '../core/reporter.js';

interface HarHeader {
  name: string;
  value: string;
}

/** What the run's findings say about one exchange. */
interface ExchangeFinding {
  check: string;
  status: string;
  requirementIds: string[];
  code: string;
  severity: string;
  message: string;
}

function headers(record: Record<string, string>): HarHeader[] {
  return Object.entries(record).map(([name, value]) => ({ name, value }));
}

function queryString(url: string): HarHeader[] {
  try {
    return [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
  } catch {
    return [];
  }
}

function header(record: Record<string, string>, name: string): string | undefined {
  return Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
}

/** Findings of the run by the exchange they point at. */
function findingsByExchange(result: RunResult): Map<string, ExchangeFinding[]> {
  const map = new Map<string, ExchangeFinding[]>();
  for (const c of result.checks) {
    for (const f of c.findings) {
      // Every exchange the finding rests on links back to it.
      const ids = new Set([f.location.exchangeId, ...(f.exchanges ?? []).map((x) => x.exchangeId)]);
      for (const id of ids) {
        if (!id) continue;
        const list = map.get(id) ?? [];
        list.push({
          check: checkName(c),
          status: c.status,
          requirementIds: f.requirementIds,
          code: f.code,
          severity: f.severity,
          message: f.message,
        });
        map.set(id, list);
      }
    }
  }
  return map;
}

function entry(x: ExchangeRecord, findings: readonly ExchangeFinding[]): Record<string, unknown> {
  const { request, response } = x.evidence;
  const requestType = header(request.headers, 'content-type');
  const failed = findings.filter((f) => f.status === 'failed' || f.status === 'waived');
  const comment = [
    `${x.incoming ? 'notification received' : 'exchange'} ${x.id} (${x.operation})`,
    ...(x.error ? [`${x.error.kind}: ${x.error.message}`] : []),
    ...failed.map((f) => `${f.status}: ${f.check} ${f.requirementIds.join(' ')} ${f.code}`),
  ].join('; ');
  const excerpt = response?.bodyExcerpt ?? '';
  return {
    startedDateTime: x.startedAt,
    time: x.durationMs,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: headers(request.headers),
      queryString: queryString(request.url),
      ...(request.body !== ''
        ? {
            postData: {
              mimeType: requestType ?? '',
              text: request.body,
              // A body kept cut in the evidence: its first characters, with its length and sha-256.
              ...(request.truncated
                ? { comment: `cut: ${request.bodyBytes} bytes, masked sha-256 ${request.bodySha256}` }
                : {}),
            },
          }
        : {}),
      headersSize: -1,
      bodySize: request.bodyBytes ?? Buffer.byteLength(request.body),
    },
    response: {
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: response ? 'HTTP/1.1' : '',
      cookies: [],
      headers: headers(response?.headers ?? {}),
      content: {
        size: Buffer.byteLength(excerpt),
        mimeType: (response && header(response.headers, 'content-type')) ?? 'x-unknown',
        text: excerpt,
        ...(excerpt.endsWith('…') ? { comment: 'excerpt: the body was cut when recorded' } : {}),
      },
      redirectURL: (response && header(response.headers, 'location')) ?? '',
      headersSize: -1,
      bodySize: -1,
      ...(x.error ? { _error: x.error } : {}),
    },
    cache: {},
    timings: { send: 0, wait: x.durationMs, receive: 0 },
    comment,
    // A URL from the target outside its origin and allowedHosts is recorded as evidence but was never requested.
    _pagi: {
      exchangeId: x.id,
      operation: x.operation,
      ...(x.incoming ? { incoming: true } : {}),
      ...(x.error?.kind === 'off-target' ? { notSent: true } : {}),
      findings,
    },
  };
}

/** The HAR document of a run's exchanges. */
export function harDocument(result: RunResult, exchanges: readonly ExchangeRecord[]): Record<string, unknown> {
  const findings = findingsByExchange(result);
  const sorted = [...exchanges].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return {
    log: {
      version: '1.2',
      creator: { name: 'pagi-conformance', version: result.metadata.kitVersion },
      entries: sorted.map((x) => entry(x, findings.get(x.id) ?? [])),
      comment: `pagi-conform run against ${result.metadata.target.baseUrl}: ${result.verdict}. Card numbers, security codes and secrets are masked.`,
    },
  };
}

/** The exchanges.har reporter. */
export function harReporter(): KitReporter {
  return fileReporter(
    'har',
    'exchanges.har',
    (result, { exchanges }) => `${JSON.stringify(harDocument(result, exchanges))}\n`,
  );
}
