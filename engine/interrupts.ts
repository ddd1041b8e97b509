/** Signals that interrupt a run, with the exit code of a process they stop (128 + the signal's number). */
export const INTERRUPTS = { SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that interrupts a run. */
export type Interrupt = keyof typeof INTERRUPTS;
