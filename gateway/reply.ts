/**
 * Replies as structured values (what the operations build and the fault hooks rewrite) and their serialisation
 * to the wire (JSON, XML via the shared codec, HTML via `html.ts`).
 */
import { writeXml } from '../core/codecs/xml.js';
import { renderHtml, type HtmlPage } from './html.js';

interface ReplyBase {
  status: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
  /** Content type without parameters; the format's conventional one when absent. */
  contentType?: string;
}

/** A structured reply. */
export type Reply =
  | (ReplyBase & { kind: 'json'; body: Record<string, unknown> })
  | (ReplyBase & { kind: 'xml'; root: string; body: Record<string, unknown> })
  | (ReplyBase & { kind: 'html'; page: HtmlPage });

/** A reply as sent: status, headers, body text. */
export interface WireResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Send with chunked transfer encoding instead of Content-Length. */
  chunked?: boolean;
}

const CONVENTIONAL: Record<Reply['kind'], string> = {
  json: 'application/json',
  xml: 'application/xml',
  html: 'text/html',
};

/** Serialise a reply. */
export function serialise(reply: Reply): WireResponse {
  const body =
    reply.kind === 'json'
      ? JSON.stringify(reply.body)
      : reply.kind === 'xml'
        ? writeXml(reply.root, reply.body)
        : renderHtml(reply.page);
  const type = reply.contentType ?? CONVENTIONAL[reply.kind];
  return { status: reply.status, headers: { 'content-type': `${type}; charset=utf-8`, ...reply.headers }, body };
}

/** A JSON reply with status 200. */
export function jsonReply(body: Record<string, unknown>): Reply {
  return { kind: 'json', status: 200, body };
}

/** An HTML page reply. */
export function pageReply(page: HtmlPage, status = 200): Reply {
  return { kind: 'html', status, page };
}
