/**
 * The kit's exit codes and error classes. Every error the kit raises on purpose carries a stable `code`
 * (`PAGI_E_…`), so callers tell errors apart by class or code, never by their message.
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
  override readonly code = 'PAGI_E_USAGE';
}
