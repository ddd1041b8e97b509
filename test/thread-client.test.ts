/**
 * A function run on a thread of its own (core/thread-client.ts, core/thread-serve.mjs): answers come from the thread,
 * an error the function throws reaches the caller, and a thread that cannot start leaves the calls to the caller's
 * thread.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { threadClient } from '../core/thread-client.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-thread-'));
const serve = new URL('../core/thread-serve.mjs', import.meta.url).href;
const script = path.join(dir, 'double.mjs');
fs.writeFileSync(
  script,
  `import { threadId } from 'node:worker_threads';\nimport { serveOnThread } from ${JSON.stringify(serve)};\n` +
    `serveOnThread((n) => { if (n < 0) throw new Error('negative: ' + n); return { doubled: n * 2, threadId }; });\n`,
);
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('threadClient', () => {
  it("answers from the thread, and throws the thread's error to the caller", async () => {
    const local = (n: number) => ({ doubled: n * 2, threadId: 0 });
    const client = threadClient<number, { doubled: number; threadId: number }>(pathToFileURL(script), local);
    const answer = await client.call(21);
    expect(answer.doubled).toBe(42);
    expect(answer.threadId).not.toBe(0);
    expect(client.onThread).toBe(true);
    await expect(client.call(-1)).rejects.toThrow('negative: -1');
    await client.close();
    expect(client.onThread).toBe(false);
    expect(await client.call(2)).toEqual({ doubled: 4, threadId: 0 });
  });

  it('makes the calls in the calling thread when the thread cannot start', async () => {
    const client = threadClient<number, number>(pathToFileURL(path.join(dir, 'missing.mjs')), (n) => n + 1);
    expect(await client.call(1)).toBe(2);
    expect(client.onThread).toBe(false);
  });
});
