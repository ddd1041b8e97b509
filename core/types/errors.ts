/**
 * The kit's exit codes and its one error hierarchy. Every error the kit raises on purpose is a `KitError` subclass
 * defined here, each with its own stable `code` (`PAGI_E_…`), so callers tell errors apart by class or code, never
 * by their message. To add one, add a class here with a code no other class has (test/cli/exit.test.ts checks).
 */
/** Exit codes of `pagi-conform` (and of `serve` and `selftest`). */
export const EXIT = {
  /** CONFORMANT; a command that did what it was asked. */
  ok: 0,
  /** NOT CONFORMANT; a failed verification or self-test; `serve` stopped with requests cut off. */
  failed: 1,
  /** Usage, configuration, connection or set-up error. */
  usage: 2,
  /** INCONCLUSIVE: a selected must check could not run. */
  inconclusive: 3,
} as const;

/** An exit code of the table. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Base of the kit's errors: a stable machine code apart from the prose. */
export class KitError extends Error {
  override name = 'KitError';
  /** Stable code, `PAGI_E_…`. */
  readonly code: string = 'PAGI_E_KIT';
  /** Exit code a command ends with on this error. */
  readonly exitCode: ExitCode = EXIT.usage;
}

/** A bad flag, config key or value: the CLI prints the message (one sentence) and exits with 2. */
export class UsageError extends KitError {
  override name = 'UsageError';
  override readonly code: string = 'PAGI_E_USAGE';
}

/**
 * A YAML file that is not valid YAML (a syntax error, a repeated key): the message is one sentence starting with
 * `file:line:column`, saying what the parser found there and to correct it (exit 2).
 */
export class YamlSyntaxError extends UsageError {
  override name = 'YamlSyntaxError';
  override readonly code = 'PAGI_E_YAML_SYNTAX';
}

/** A profile that breaks its schema or its consistency rules: one sentence naming each problem where it is (exit 2). */
export class ProfileError extends UsageError {
  override name = 'ProfileError';
  override readonly code = 'PAGI_E_PROFILE';
}

/**
 * A spec, catalogue or schema set that cannot be used (a copy given with --spec-root, or one a custom registry or the
 * gateway reads): what is inconsistent and in which file (exit 2).
 */
export class SpecError extends UsageError {
  override name = 'SpecError';
  override readonly code = 'PAGI_E_SPEC';
}

/** A registry of checks and probes (--registry) that does not fit the spec, or a check or probe it lacks (exit 2). */
export class RegistryError extends UsageError {
  override name = 'RegistryError';
  override readonly code = 'PAGI_E_REGISTRY';
}

/** A pact file that cannot be read as a pact (pact check, pact verify --pact): which file and why (exit 2). */
export class PactFileError extends UsageError {
  override name = 'PactFileError';
  override readonly code = 'PAGI_E_PACT_FILE';
}

/** A set-up mistake found before any check ran (credentials refused, no PAGI gateway): exit 2 with this one sentence, no report. */
export class SetupError extends UsageError {
  override name = 'SetupError';
  override readonly code = 'PAGI_E_SETUP';
}

/** The target could not be reached: exit 2 with this one sentence. */
export class UnreachableError extends UsageError {
  override name = 'UnreachableError';
  override readonly code = 'PAGI_E_UNREACHABLE';
}

/** A profile of a format newer than the kit's: the kit cannot tell what its keys mean (exit 2). */
export class ProfileFormatError extends KitError {
  override name = 'ProfileFormatError';
  override readonly code = 'PAGI_E_PROFILE_FORMAT';
}

/** A requirement id a check reported that is not among its `requirements`: a mistake of the kit (or a custom registry), never a finding. */
export class ForeignRequirementError extends KitError {
  override name = 'ForeignRequirementError';
  override readonly code = 'PAGI_E_FOREIGN_REQUIREMENT';
  constructor(checkId: string, ids: readonly string[]) {
    super(`check ${checkId} reported requirement ${ids.join(', ')}, which is not among its requirements`);
  }
}

/** A URL the target handed over that resolves outside it: the kit refuses to send the request. */
export class OffTargetError extends KitError {
  override name = 'OffTargetError';
  override readonly code = 'PAGI_E_OFF_TARGET';
}

/** A reference gateway configuration file that cannot be used; the message is one sentence per problem. */
export class ConfigError extends KitError {
  override name = 'ConfigError';
  override readonly code = 'PAGI_E_GATEWAY_CONFIG';
}

/** A gateway fault name the fault registry does not hold. */
export class UnknownFaultError extends KitError {
  override name = 'UnknownFaultError';
  override readonly code = 'PAGI_E_UNKNOWN_FAULT';
}

/** A gateway data folder that cannot be used (another gateway holds it, or it cannot be read or written). */
export class JournalError extends KitError {
  override name = 'JournalError';
  override readonly code: string = 'PAGI_E_JOURNAL';
}

/** A gateway database (`serve --data DIR`) that cannot be used: one sentence naming the file, what is wrong, what to do. */
export class DatabaseDamage extends JournalError {
  override name = 'DatabaseDamage';
  override readonly code = 'PAGI_E_DATABASE_DAMAGE';
  constructor(file: string, what: string) {
    super(
      `${file} ${what}: nothing was changed; restore the folder from a copy, or start afresh with --data pointing at a new folder`,
    );
  }
}

/** A provider state of a pact that could not be made true: the gateway refused a step. */
export class ProviderStateError extends KitError {
  override name = 'ProviderStateError';
  override readonly code = 'PAGI_E_PROVIDER_STATE';
}

/** Profile discovery spent its budget of requests: it stops and writes what it has. */
export class BudgetSpent extends KitError {
  override name = 'BudgetSpent';
  override readonly code = 'PAGI_E_BUDGET_SPENT';
}

/**
 * A set-up step of a probe did not give what the probe needs: the observation is inconclusive, not failed. `X` is the
 * exchange of the step (an `Exchange`; left generic so that this file imports nothing).
 */
export class SetupFailed<X = unknown> extends KitError {
  override name = 'SetupFailed';
  override readonly code = 'PAGI_E_PROBE_SETUP';
  constructor(
    readonly step: string,
    readonly exchange: X | undefined,
    why: string,
  ) {
    super(`set-up step ${step} failed: ${why}`);
  }
}

/** A probe could not observe what its checks need (the reason is the message): its checks are inconclusive. */
export class Inconclusive extends KitError {
  override name = 'Inconclusive';
  override readonly code = 'PAGI_E_INCONCLUSIVE';
}

/** A step of a lifecycle scenario did not give what the next steps need: the scenario stops there. */
export class ScenarioStopped extends KitError {
  override name = 'ScenarioStopped';
  override readonly code = 'PAGI_E_SCENARIO_STOPPED';
}

/**
 * A check or probe read a point the profile leaves out (profile format 6: not stated). The engine turns it into a
 * not-applicable result naming `pointer`, never a failure against the format's default nor a kit error.
 */
export class ProfilePointNotStated extends KitError {
  override name = 'ProfilePointNotStated';
  override readonly code = 'PAGI_E_PROFILE_POINT_NOT_STATED';
  /** The JSON pointer of the point (`/statusValues/payment_status/captured`). */
  readonly pointer: string;
  constructor(pointer: string) {
    super(`the profile does not state ${pointer}`);
    this.pointer = pointer;
  }
}

/**
 * Discovery's size-limit search: a body size no answer told (the connection was lost, a time-out or a reset, twice at
 * that size). Caught by the search, which then leaves the limit undecided; it never reaches a user.
 */
export class NoAnswerAtSize extends KitError {
  override name = 'NoAnswerAtSize';
  override readonly code: string = 'PAGI_E_NO_ANSWER_AT_SIZE';
  constructor(readonly bytes: number) {
    super(`no answer to a body of ${bytes} bytes`);
  }
}
