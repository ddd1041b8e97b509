/**
 * `proxy --pact FILE`: a Pact V4 file of the observed interactions. Each exchange whose request had no finding and
 * whose answer was a 200 becomes one interaction: the merchant's request as it was sent (its card fields and
 * notify_url replaced by the provider state's values, as in the generated pact, so the file holds no card and a
 * verification sends no notification to the merchant), and as its response what the interface guarantees of the
 * operation's answer, the generated pact's (pact/interactions.ts), so `pagi-conform pact check` accepts the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { encodeForm } from '../core/codecs/form.js';
import { type MaskRules, maskValue } from '../core/mask.js';
import type { OperationKey } from '../core/model.js';
import { cardFieldNames } from '../engine/evidence.js';
import { CONSUMER, PROVIDER, interactions, pactText } from '../pact/interactions.js';
import type { PactFile, PactInteraction } from '../pact/pact-file.js';
import { PACT_NOTIFY_URL } from '../pact/states.js';
import { FIELD } from '../suites/fields.js';
import type { Judged } from './session.js';

/** Interactions the file holds at most (a long session's first ones). */
export const MAX_PACT_INTERACTIONS = 500;

/** Collects the observed interactions of a session. */
export class PactRecorder {
  private readonly generated = new Map<OperationKey, PactInteraction>();
  readonly recorded: PactInteraction[] = [];
  private readonly cardFields: string[];

  constructor(
    private readonly profile: string,
    private readonly rules: MaskRules,
    profileValue: Parameters<typeof cardFieldNames>[0],
  ) {
    for (const i of interactions({ profile }))
      if (i.response.status === 200 && i.key) this.generated.set(i.key.replace(/-200$/, '') as OperationKey, i);
    this.cardFields = cardFieldNames(profileValue);
  }

  /** Add one judged exchange, when its request was clean and it was answered 200. */
  add(judged: Judged): void {
    const x = judged.exchange;
    const template = this.generated.get(judged.operation);
    if (!template || judged.request.length || x.response?.status !== 200 || !x.request.body) return;
    if (this.recorded.length >= MAX_PACT_INTERACTIONS) return;
    const templateBody = (template.request.body?.content ?? {}) as Record<string, unknown>;
    const body: Record<string, unknown> = { ...x.request.body };
    for (const f of this.cardFields)
      if (f in body) body[f] = typeof templateBody === 'object' ? templateBody[f] : undefined;
    if (FIELD.notifyUrl in body) body[FIELD.notifyUrl] = PACT_NOTIFY_URL;
    const form = x.request.encoding === 'form';
    const contentType = form ? 'application/x-www-form-urlencoded; charset=utf-8' : 'application/json; charset=utf-8';
    const masked = maskValue(body, this.rules);
    this.recorded.push({
      type: 'Synchronous/HTTP',
      key: `${judged.operation}-observed-${this.recorded.length + 1}`,
      description: `${template.description} observed by the proxy (${x.id})`,
      ...(template.providerStates ? { providerStates: template.providerStates } : {}),
      request: {
        method: x.request.method.toUpperCase(),
        path: template.request.path,
        headers: { 'Content-Type': [contentType] },
        body: { content: form ? encodeForm(masked) : masked, contentType, encoded: false },
        ...(template.request.generators ? { generators: template.request.generators } : {}),
      },
      response: template.response,
      pending: false,
      comments: {
        text: [
          ...(template.comments?.text ?? []),
          `observed: ${x.id} at ${x.startedAt}, answered ${x.response.status}`,
        ],
      },
    });
  }

  /** The pact file of the interactions recorded. */
  file(): PactFile {
    return {
      consumer: { name: CONSUMER },
      provider: { name: PROVIDER },
      interactions: this.recorded,
      metadata: {
        pactSpecification: { version: '4.0' },
        'pagi-conformance': { generatedBy: 'pagi-conform proxy --pact', profile: this.profile },
      },
    };
  }

  /** Write the file; its path. */
  write(file: string): string {
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    fs.writeFileSync(file, pactText(this.file()));
    return file;
  }
}
