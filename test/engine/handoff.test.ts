import { describe, expect, it } from 'vitest';
import { receiveSetup, setupSender } from '../../engine/handoff.js';
import type { EarlySetup, RunSetup } from '../../engine/setup.js';

/** A run's early setup on a channel of its own. */
function early(name: string): EarlySetup {
  return { runId: name, registry: '/nowhere/registry.js', channel: `pagi-test-${name}-${Math.random()}` };
}

const SETUP = { runId: 'r', config: { baseUrl: 'http://127.0.0.1:1' } } as unknown as RunSetup;

describe('engine/handoff.ts: the run handed to the suite worker', () => {
  it('reaches a worker that asked before the run went ahead', async () => {
    const e = early('before');
    const sender = setupSender(e.channel);
    const received = receiveSetup(e);
    await new Promise((resolve) => setTimeout(resolve, 20));
    sender.send(SETUP);
    await expect(received).resolves.toEqual(SETUP);
    sender.close();
  });

  it('reaches a worker that asks after the run went ahead', async () => {
    const e = early('after');
    const sender = setupSender(e.channel);
    sender.send(SETUP);
    await expect(receiveSetup(e)).resolves.toEqual(SETUP);
    sender.close();
  });

  it('tells the worker when the run does not go ahead, and a later send changes nothing', async () => {
    const e = early('abandoned');
    const sender = setupSender(e.channel);
    const received = receiveSetup(e);
    sender.abandon();
    sender.send(SETUP);
    await expect(received).rejects.toThrow(/did not go ahead/);
    await expect(receiveSetup(e)).rejects.toThrow(/did not go ahead/);
    sender.close();
  });
});
