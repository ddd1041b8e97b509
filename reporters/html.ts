/**
 * The HTML certification report (`<out>/report.html`): one self-contained file (inline style and script only,
 * allowed by their hashes in the page's Content-Security-Policy; no external script, style, font or image), readable
 * offline. Banner: the overall verdict, the document-conformance and payment-integrity verdicts (the broken invariants
 * named in the catalogue's words), its colour following both verdicts and the warnings. Then what failed or warned,
 * most serious first, each check with its findings and the evidence of each request once; the run's facts, totals and
 * coverage; and the requirement matrix (requirement → its checks → status), filterable by status, family and
 * operation, each check expanding to its findings and evidence, drawn from the embedded results.json. The page is sealed (reporters/seal.ts) and signed
 * with `--sign-key`. Everything from the run is escaped where it is written: HTML text, attributes, embedded JSON.
 */
import { createHash, type KeyObject } from 'node:crypto';
import type { CheckResult, Evidence, RequirementResult, RunResult } from '../core/model.js';
import { statusForRequirement } from '../core/run-result.js';
import { resultsDocument } from './json.js';
import {
  STATUSES,
  checkName,
  countByStatus,
  failedBySeriousness,
  findingLine,
  groupsOf,
  levelLabel,
  printable,
  problems,
  replayOf,
  reproduceCommand,
  resultsFileOf,
  statements,
  statusLabel,
  uncheckedLines,
  verdictHeadline,
  verdictLines,
  notJudgedLine,
} from './format.js';
import { EMPTY_SEAL, resultsElement, sealPage } from './seal.js';
import { fileReporter } from './file.js';
import type { KitReporter } from '../core/reporter.js';

/** HTML-escape text for element content and quoted attribute values (control characters shown as `\\xNN`). */
function escapeHtml(text: string): string {
  return printable(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `
:root { --ok: #1a7f37; --bad: #c62828; --warn: #a15c00; --muted: #59636e; --line: #d0d7de; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; }
main { max-width: 1200px; margin: 0 auto; padding: 0 16px 48px; }
header.verdict { padding: 20px 16px; color: #fff; }
header.verdict > div { max-width: 1200px; margin: 0 auto; }
.v-CONFORMANT { background: var(--ok); } .v-NOT-CONFORMANT { background: var(--bad); } .v-INCONCLUSIVE { background: var(--warn); }
.v-CONFORMANT-WARNINGS { background: #5c6b00; }
header .verdicts { margin: 8px 0 0; padding-left: 18px; } header .breaches { margin: 4px 0 0; padding-left: 18px; font-weight: 600; }
section.failures .failure { border: 1px solid var(--line); border-left: 4px solid var(--warn); padding: 4px 12px; margin: 8px 0; }
section.failures .failure.sev-invariant, section.failures .failure.sev-must { border-left-color: var(--bad); }
section.failures h3 { font-size: 15px; margin: 6px 0; font-family: ui-monospace, monospace; }
header h1 { margin: 0 0 4px; font-size: 28px; letter-spacing: .5px; }
header .reasons { margin: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 16px 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
code, pre { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: var(--bg); border: 1px solid var(--line); padding: 8px; white-space: pre-wrap; overflow-wrap: anywhere; max-height: 360px; overflow: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
table.counts td.n, table.counts th.n { text-align: right; }
.badge { display: inline-block; padding: 0 6px; border-radius: 10px; font-size: 12px; border: 1px solid currentColor; white-space: nowrap; }
.s-passed { color: var(--ok); } .s-failed { color: var(--bad); font-weight: 600; } .s-waived, .s-skipped { color: var(--warn); }
.s-not_applicable, .s-untested, .s-no_check, .s-untestable { color: var(--muted); }
tbody.req tr.req-head th { background: var(--bg); font-weight: normal; padding-top: 8px; }
.rid { font-weight: 600; font-family: ui-monospace, monospace; } .level { color: var(--muted); }
form.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin: 12px 0; padding: 8px; background: var(--bg); border: 1px solid var(--line); }
form.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
#shown { color: var(--muted); margin-left: auto; }
details > summary { cursor: pointer; font-family: ui-monospace, monospace; }
.detail { padding: 4px 0 8px 16px; }
.finding { border-left: 3px solid var(--line); padding-left: 8px; margin: 8px 0; }
.finding.sev-must, .finding.sev-invariant { border-color: var(--bad); } .finding.sev-expected, .finding.sev-profile { border-color: var(--warn); }
p.step { font-family: ui-monospace, monospace; font-size: 12px; margin: 8px 0 2px; } p.step.failing { font-weight: 600; color: var(--bad); }
.muted { color: var(--muted); }
h2 { margin-top: 32px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
`;

// The page's only script: filters, and each check's findings and evidence drawn from the embedded results when first
// opened. It writes text with textContent only.
const SCRIPT = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('pagi-results').textContent);
  var checks = data.checks;
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function lines(head, headers, body) {
    var out = [head];
    Object.keys(headers).forEach(function (k) { out.push(k + ': ' + headers[k]); });
    if (body) out.push('', body);
    return out.join('\\n');
  }
  function evidence(e) {
    var box = el('div', 'evidence');
    box.appendChild(el('h4', null, 'Request'));
    box.appendChild(el('pre', 'request', lines(e.request.method + ' ' + e.request.url, e.request.headers, e.request.body)));
    box.appendChild(el('h4', null, 'Reproduce'));
    box.appendChild(el('pre', 'curl', e.curl));
    box.appendChild(el('h4', null, 'Response'));
    box.appendChild(el('pre', 'response', e.response ? lines('HTTP ' + e.response.status, e.response.headers, e.response.bodyExcerpt) : 'no response'));
    return box;
  }
  function detail(c, level) {
    var box = el('div', 'detail');
    var at = level && level !== c.severity ? ' · fails at ' + level + ' (its requirements reach ' + c.severity + ')' : ' · level ' + c.severity;
    box.appendChild(el('p', 'muted', 'requirements: ' + c.requirementIds.join(', ') + at + ' · ' + c.durationMs + ' ms'));
    if (c.reason) box.appendChild(el('p', 'reason', c.status.replace('_', ' ') + ': ' + c.reason));
    if (!c.findings.length) box.appendChild(el('p', 'muted', 'No findings.'));
    var shown = {};
    c.findings.forEach(function (f) {
      var item = el('div', 'finding sev-' + f.severity);
      item.appendChild(el('p', 'fhead', (f.side ? (f.side === 'request' ? 'your request' : "the gateway's answer") + ': ' : '') + '[' + f.severity + '] ' + f.code + ' · ' + f.title));
      item.appendChild(el('p', 'fmsg', f.message));
      var at = 'at ' + f.location.operation + ' ' + (f.location.pointer || '/') + (f.location.exchangeId ? ' · exchange ' + f.location.exchangeId : '') + ' · ' + f.requirementIds.join(', ');
      item.appendChild(el('p', 'muted', at));
      var rests = f.exchanges && f.exchanges.length ? f.exchanges : f.evidence ? [{ exchangeId: f.location.exchangeId, evidence: f.evidence }] : [];
      rests.forEach(function (x) {
        var key = x.exchangeId || x.evidence.curl;
        if (shown[key]) return;
        shown[key] = true;
        if (rests.length > 1 && x.exchangeId) {
          var uses = (x.uses || []).map(function (u) { return '; replaying, replace ' + JSON.stringify(u.value) + ' at ' + u.field + ' by the ' + u.fromField + ' of ' + u.from + "'s answer"; }).join('');
          item.appendChild(el('p', 'muted', 'exchange ' + x.exchangeId + (x.exchangeId === f.location.exchangeId ? ' (the failing request)' : '') + uses));
        }
        item.appendChild(evidence(x.evidence));
      });
      box.appendChild(item);
    });
    return box;
  }
  document.addEventListener('toggle', function (ev) {
    var d = ev.target;
    if (!d.matches || !d.matches('tr.check details') || !d.open || d.querySelector('.detail')) return;
    var row = d.closest('tr.check');
    d.appendChild(detail(checks[Number(row.getAttribute('data-check'))], row.getAttribute('data-level')));
  }, true);
  var f = { status: document.getElementById('f-status'), family: document.getElementById('f-family'), operation: document.getElementById('f-operation') };
  function apply() {
    var want = { status: f.status.value, family: f.family.value, operation: f.operation.value };
    var any = want.status || want.family || want.operation;
    var nRows = 0, nReqs = 0, distinct = {};
    document.querySelectorAll('tbody.req').forEach(function (group) {
      var rows = group.querySelectorAll('tr.check'), visible = 0;
      rows.forEach(function (row) {
        var ok = ['status', 'family', 'operation'].every(function (k) { return !want[k] || row.getAttribute('data-' + k) === want[k]; });
        row.hidden = !ok;
        if (ok) { visible++; distinct[row.getAttribute('data-check')] = true; }
      });
      var show = rows.length ? visible > 0 : !any;
      group.hidden = !show;
      if (show) nReqs++;
      nRows += visible;
    });
    document.getElementById('shown').textContent = nReqs + ' requirements, ' + Object.keys(distinct).length + ' check results (' + nRows + ' rows) shown';
  }
  Object.keys(f).forEach(function (k) { f[k].addEventListener('change', apply); });
  var seal = JSON.parse(document.getElementById('pagi-seal').textContent || '{}');
  document.getElementById('seal').textContent = seal.signature
    ? 'Signed (Ed25519, key sha256:' + String(seal.keyFingerprint).slice(0, 16) + '…). Check with: pagi-conform verify report.html --public-key KEY'
    : 'Not signed. Check that the file is intact with: pagi-conform verify report.html';
  apply();
})();
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** Content-Security-Policy of the page: nothing loads, only its own style and script run. */
const CSP = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; base-uri 'none'; form-action 'none'`;

const badge = (status: string) =>
  `<span class="badge s-${escapeHtml(status)}">${escapeHtml(statusLabel(status))}</span>`;

function facts(result: RunResult): string {
  const m = result.metadata;
  const t = result.totals;
  const rows: [string, string][] = [
    ['target', `${m.target.baseUrl}${m.target.embedded ? ' (embedded reference gateway)' : ''}`],
    [
      'profile',
      `${m.profile.name} (version ${m.profile.version})${m.profile.description ? ` — ${m.profile.description}` : ''} · sha256:${m.profile.digest}`,
    ],
    ['kit', `pagi-conformance ${m.kitVersion} · Node ${m.nodeVersion}`],
    ['spec digest', `sha256:${m.spec.digest}`],
    [
      'date',
      `${m.startedAt} → ${m.endedAt} (${(m.durationMs / 1000).toFixed(1)} s)${m.shards ? ` · merged from ${m.shards.length} shards` : ''}`,
    ],
    [
      'totals',
      `${t.checks} check results: ${STATUSES.map((s) => `${t.byStatus[s]} ${statusLabel(s)}`).join(', ')} · ${t.exchanges} exchanges`,
    ],
    ...(notJudgedLine(result) ? [['not judged', notJudgedLine(result)!] as [string, string]] : []),
    ['coverage', `${result.coverage.checked} of ${result.coverage.testable} testable requirements checked`],
    [
      'fail on',
      `${m.failOn} · seed ${m.seed}${m.selection.only.length ? ` · only ${m.selection.only.join(',')}` : ''}${m.selection.skip.length ? ` · skip ${m.selection.skip.join(',')}` : ''}`,
    ],
    ['config digest', `sha256:${m.configDigest}`],
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}<dt>seal</dt><dd id="seal"></dd></dl>`;
}

function countsTable(result: RunResult): string {
  const { families } = groupsOf(result);
  const row = (name: string, checks: readonly CheckResult[]) => {
    const c = countByStatus(checks);
    return `<tr><th>${escapeHtml(name)}</th>${STATUSES.map((s) => `<td class="n">${c[s]}</td>`).join('')}<td class="n">${checks.length}</td></tr>`;
  };
  const head = `<tr><th>family</th>${STATUSES.map((s) => `<th class="n">${escapeHtml(statusLabel(s))}</th>`).join('')}<th class="n">total</th></tr>`;
  const body =
    families
      .map((f) =>
        row(
          f,
          result.checks.filter((c) => c.family === f),
        ),
      )
      .join('') + row('total', result.checks);
  return `<table class="counts"><thead>${head}</thead><tbody>${body}</tbody></table>`;
}

function select(id: string, label: string, values: readonly string[]): string {
  const options = values.map((v) => `<option value="${escapeHtml(v)}">${escapeHtml(statusLabel(v))}</option>`).join('');
  return `<label for="${id}">${escapeHtml(label)}<select id="${id}"><option value="">all</option>${options}</select></label>`;
}

function requirementGroup(
  req: RequirementResult,
  statement: string | undefined,
  index: Map<string, number>,
  checks: readonly CheckResult[],
  label: (c: CheckResult) => string,
): string {
  const head = `<tr class="req-head"><th colspan="5"><span class="rid">${escapeHtml(req.id)}</span> <span class="level">${escapeHtml(req.level)}</span> ${badge(req.status)} ${escapeHtml(statement ?? '')}</th></tr>`;
  const rows = req.checks.map((name) => {
    const i = index.get(name);
    const c = i === undefined ? undefined : checks[i];
    if (!c || i === undefined) return '';
    // A check failed on another of its requirements has checked this one and found nothing against it.
    const status = statusForRequirement(c, req.id);
    const other =
      status === c.status
        ? ''
        : ` <span class="muted">(the check ${escapeHtml(statusLabel(c.status))} on other requirements)</span>`;
    const data = `data-check="${i}" data-level="${escapeHtml(label(c))}" data-status="${escapeHtml(status)}" data-family="${escapeHtml(c.family)}" data-operation="${escapeHtml(c.operation)}"`;
    return `<tr class="check" ${data}><td><details><summary>${escapeHtml(checkName(c))}</summary></details></td><td>${escapeHtml(c.family)}</td><td>${escapeHtml(c.operation)}</td><td>${escapeHtml(label(c))}</td><td>${badge(status)}${other}</td></tr>`;
  });
  const none = req.checks.length
    ? ''
    : `<tr><td colspan="5" class="muted">${escapeHtml(statusLabel(req.status))}: no check result for this requirement</td></tr>`;
  return `<tbody class="req" data-status="${escapeHtml(req.status)}">${head}${rows.join('')}${none}</tbody>`;
}

function matrix(result: RunResult): string {
  const index = new Map(result.checks.map((c, i) => [checkName(c), i]));
  const texts = statements(result);
  const { families, operations } = groupsOf(result);
  const filters = `<form class="filters" id="filters">${select('f-status', 'status', STATUSES)}${select('f-family', 'family', families)}${select('f-operation', 'operation', operations)}<span id="shown"></span></form>`;
  const head =
    '<thead><tr><th>check (expand for findings and evidence)</th><th>family</th><th>operation</th><th>level</th><th>status</th></tr></thead>';
  const groups = result.requirements
    .map((r) => requirementGroup(r, texts.get(r.id), index, result.checks, (c) => levelLabel(result, c)))
    .join('');
  return `${filters}<table class="matrix" id="matrix">${head}${groups}</table>`;
}

/** Most failed checks the page opens with (the matrix below holds them all). */
const FAILURES_SHOWN = 60;

/** The evidence of one exchange as static text (the request line, the curl line, the response). */
function evidenceHtml(e: Evidence): string {
  const response = e.response
    ? [
        `HTTP ${e.response.status}`,
        ...Object.entries(e.response.headers).map(([k, v]) => `${k}: ${v}`),
        '',
        e.response.bodyExcerpt ?? '',
      ].join('\n')
    : 'no response';
  return `<pre class="curl">${escapeHtml(e.curl)}</pre><pre class="response">${escapeHtml(response)}</pre>`;
}

/**
 * What failed or warned, most serious first (a broken invariant, then must, expected, profile), each check with its
 * findings and the evidence of each request once: a request shown for an earlier check is named, not shown again.
 */
function failuresSection(result: RunResult, resultsFile: string): string {
  const failed = failedBySeriousness(result);
  if (!failed.length) return '';
  const breaches = new Map<string, string[]>();
  for (const b of result.verdicts?.integrity.broken ?? [])
    for (const c of b.checks) breaches.set(c, [...(breaches.get(c) ?? []), `${b.breach} (${b.id})`]);
  const shownRequests = new Map<string, string>();
  const items = failed.slice(0, FAILURES_SHOWN).map((r) => {
    const name = checkName(r);
    const broken = breaches.get(name) ?? [];
    const level = levelLabel(result, r);
    const what = broken.length
      ? `breaks payment integrity: ${broken.join('; ')}`
      : `fails at ${level}${result.verdicts?.document.warnings.some((w) => w.check === name) ? ' (a warning: below --fail-on)' : ''}`;
    const findings = problems(r)
      .slice(0, 5)
      .map(
        (f) =>
          `<div class="finding sev-${escapeHtml(f.severity)}"><p class="fhead">[${escapeHtml(f.severity)}] ${escapeHtml(f.code)} · ${escapeHtml(f.title)} · ${escapeHtml(f.requirementIds.join(', '))}</p><p class="fmsg">${escapeHtml(findingLine(f))}</p></div>`,
      )
      .join('');
    const more =
      problems(r).length > 5
        ? `<p class="muted">… ${problems(r).length - 5} more finding(s) in the matrix below.</p>`
        : '';
    const steps = replayOf(r);
    // Several steps are shown whole, in the order sent, the failing one marked, then the command replaying them.
    const evidence =
      steps.length > 1
        ? `${steps.map((st) => `<p class="step${st.failing ? ' failing' : ''}">${escapeHtml(st.comment!)}</p>${evidenceHtml(st.evidence)}`).join('')}<p class="reproduce">Replay the steps with fresh identifiers: <code>${escapeHtml(reproduceCommand(r, resultsFile))}</code></p>`
        : steps
            .map(({ evidence: e }) => {
              const first = shownRequests.get(e.curl);
              if (first) return `<p class="muted">Evidence: the same request as ${escapeHtml(first)} above.</p>`;
              shownRequests.set(e.curl, name);
              return evidenceHtml(e);
            })
            .join('');
    return `<div class="failure sev-${escapeHtml(level)}"><h3>${escapeHtml(name)}</h3><p>${escapeHtml(what)}</p>${findings}${more}${evidence}</div>`;
  });
  const rest =
    failed.length > FAILURES_SHOWN
      ? `<p class="muted">… and ${failed.length - FAILURES_SHOWN} more failed check(s): see the requirement matrix.</p>`
      : '';
  return `<section class="failures" id="failures"><h2>What failed${result.verdicts?.document.warnings.length ? ' or warned' : ''} (${failed.length}), most serious first</h2>${items.join('')}${rest}</section>`;
}

/** The banner's class: the overall verdict, and a pass with warnings apart from a clean one. */
function bannerClass(result: RunResult): string {
  const warned = result.verdict === 'CONFORMANT' && (result.verdicts?.document.warnings.length ?? 0) > 0;
  return `v-${result.verdict.replace(/ /g, '-')}${warned ? '-WARNINGS' : ''}`;
}

/**
 * The banner's text under the verdict: the two verdicts, one line each, the broken invariants in the catalogue's
 * words under the integrity line, then the reasons these do not already say (a partial or interrupted run, …).
 */
function bannerBody(result: RunResult): string {
  const v = result.verdicts;
  const [documentLine, integrityLine] = verdictLines(result);
  const broken = v?.integrity.broken ?? [];
  const breaches = broken.length
    ? `<ul class="breaches">${broken.map((b) => `<li>${escapeHtml(`${b.breach[0]!.toUpperCase()}${b.breach.slice(1)}`)} (${escapeHtml(b.id)}, ${escapeHtml(b.family)})</li>`).join('')}</ul>`
    : '';
  const verdicts =
    documentLine && integrityLine
      ? `<ul class="verdicts"><li>${escapeHtml(documentLine)}</li><li>${escapeHtml(broken.length ? 'payment integrity: FAILED' : integrityLine)}${breaches}</li></ul>`
      : '';
  const said = new Set(v ? [...v.document.reasons, ...v.integrity.reasons] : []);
  const reasons = result.verdictReasons
    .filter((r) => !v || (!r.startsWith('Payment integrity ') && !said.has(r)))
    .map((r) => `<p class="reasons">${escapeHtml(r)}</p>`)
    .join('');
  return `${verdicts}${reasons}`;
}

/** The report page, unsealed (with an empty seal element). */
export function reportPage(result: RunResult, resultsFile = 'results.json'): string {
  const m = result.metadata;
  const headline = verdictHeadline(result);
  const warnings = result.warnings.length
    ? `<h2>Warnings</h2><ul>${result.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>`
    : '';
  const notChecked = uncheckedLines(result);
  const unchecked = notChecked.length
    ? `<p class="muted">Testable requirements no check ran for (${notChecked.length}):</p><ul class="unchecked">${notChecked.map((u) => `<li>${escapeHtml(u)}</li>`).join('')}</ul>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`PAGI conformance report: ${headline}${result.partial ? ' (partial run)' : ''} · ${m.target.baseUrl}`)}</title>
<style>${STYLE}</style>
</head>
<body>
<header class="verdict ${bannerClass(result)}"><div><h1 id="verdict">${escapeHtml(headline)}</h1>${bannerBody(result)}</div></header>
<main>
${failuresSection(result, resultsFile)}
${facts(result)}
<noscript><p>Filtering and each check's findings and evidence need JavaScript; the results are embedded in this file (script#pagi-results).</p></noscript>
<h2>Checks by family</h2>
${countsTable(result)}
${unchecked}${warnings}
<h2>Requirement matrix</h2>
${matrix(result)}
</main>
${resultsElement(resultsDocument(result))}
${EMPTY_SEAL}
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The report.html reporter; signs the report with `signKey` when given. */
export function htmlReporter(signKey?: KeyObject): KitReporter {
  return fileReporter(
    'html',
    'report.html',
    (result, end) => reportPage(result, resultsFileOf(end)),
    (masked) => sealPage(masked, signKey),
  );
}
