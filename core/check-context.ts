/**
 * The one way a check context is made: the run's worker (engine/suite.ts), `pact check` (pact/check.ts) and the proxy
 * (proxy/session.ts) give checks the same spec, requirement lookup and masking; only the configuration and the
 * signature verifier differ.
 */
import { maskText, type MaskRules } from './mask.js';
import type { CheckContext, Requirement, RunConfigView } from './model.js';
import type { SpecModel } from './spec/load.js';

/**
 * The requirement of the kit's catalogue an id names. Checks name ids of the catalogue (registryProblems checks the
 * registry's before a run, the pact and proxy tables theirs when they load): a missing one is a defect of the kit.
 */
export function catalogueRequirement(spec: SpecModel, id: string): Requirement {
  const requirement = spec.requirements.get(id);
  if (!requirement) throw new Error(`requirement ${id} is not in the catalogue`);
  return requirement;
}

/** The run configuration a check reads where the kit sends nothing itself (a merchant's pact, a proxied exchange). */
export function observedOnlyConfig(
  baseUrl: string,
  ids: { merchantId?: string; accountId?: string } = {},
): RunConfigView {
  return {
    baseUrl,
    merchantId: ids.merchantId ?? '',
    accountId: ids.accountId ?? '',
    orderPrefix: '',
    seed: 0,
    cards: {},
    paymentMethods: { valid: [], unknown: '' },
    notifyWaitMs: 0,
  };
}

/** What a check context is made of. */
export interface CheckContextParts {
  spec: SpecModel;
  profile: CheckContext['profile'];
  config: RunConfigView;
  /** The masking rules of the run: card numbers, security codes, the secret. */
  rules: MaskRules;
  verifySignature?: CheckContext['verifySignature'];
}

/** The context checks read: the spec, the profile, the configuration, the catalogue's requirements, masking. */
export function checkContext(parts: CheckContextParts): CheckContext {
  const { spec, profile, config, rules, verifySignature } = parts;
  return {
    spec,
    profile,
    config,
    requirement: (id) => catalogueRequirement(spec, id),
    mask: (text) => maskText(text, rules),
    ...(verifySignature ? { verifySignature } : {}),
  };
}
