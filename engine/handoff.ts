/**
 * How the runner hands the suite worker its run once the run goes ahead. Vitest and its worker start as the run
 * starts, beside the target, the receiver and the pre-flight: the worker is given an EarlySetup (enough to load the
 * spec and the registry meanwhile), then the RunSetup on a BroadcastChannel of the process (the worker is a thread of
 * it; the secret the setup holds never touches the disk), or word that the run does not go ahead.
 */
import { BroadcastChannel } from 'node:worker_threads';
import type { EarlySetup, RunSetup } from './setup.js';

/** What goes over the channel: the worker asks (`want`), the runner answers with the setup or the run's end. */
type HandOff = 'want' | { setup: RunSetup } | { abandoned: true };

/** The runner's end of the channel `name`: `send` hands the setup over, `abandon` says the run does not go ahead. */
export function setupSender(name: string): {
  send(setup: RunSetup): void;
  abandon(): void;
  close(): void;
} {
  const channel = new BroadcastChannel(name);
  channel.unref();
  let answer: Exclude<HandOff, 'want'> | undefined;
  // A worker that asks before the answer is known hears it when it is posted; one that asks after, in reply.
  channel.onmessage = (event) => {
    if ((event as { data: HandOff }).data === 'want' && answer) channel.postMessage(answer);
  };
  const post = (message: Exclude<HandOff, 'want'>) => {
    answer ??= message;
    channel.postMessage(answer);
  };
  return {
    send: (setup) => post({ setup }),
    abandon: () => post({ abandoned: true }),
    close: () => channel.close(),
  };
}

/** The worker's end: the run's setup once the runner hands it over; rejects when the run does not go ahead. */
export function receiveSetup(early: EarlySetup): Promise<RunSetup> {
  const channel = new BroadcastChannel(early.channel);
  return new Promise<RunSetup>((resolve, reject) => {
    channel.onmessage = (event) => {
      const data = (event as { data: HandOff }).data;
      if (data === 'want') return;
      channel.close();
      if ('setup' in data) resolve(data.setup);
      else reject(new Error('the run did not go ahead (it stopped before its suites)'));
    };
    channel.postMessage('want' satisfies HandOff);
  });
}
