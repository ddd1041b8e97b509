import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ReplayRequest } from '../../engine/client.js';
import { newReplayFile, readReplayFile, replayWriter } from '../../engine/replay-file.js';

const request = (i: number): ReplayRequest => ({
  method: 'POST',
  url: `http://127.0.0.1:1/v1/payment/${i}`,
  headers: { 'content-type': 'application/json' },
  // Bodies with line breaks, quotes, lengths and characters of several UTF-8 widths, in every frame position.
  bodyText:
    i % 3 === 2
      ? `note=${'\n12\n{"a":"b"}\n'.repeat(i % 5)}&é=ü€😀&pad=${'y'.repeat(i % 300)}`
      : JSON.stringify({ order_no: `o-${i}`, card_number: '4111111111111111', pad: 'x'.repeat(i % 700) }),
  sentAt: 1_000 + i,
  durationMs: 2,
  ...(i % 7 === 3 ? { localAddress: '127.0.0.2' } : {}),
});

describe('replay file', () => {
  it('reads back every copy in the order written, across frames, and holds no card number in clear', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pagi-replay-test-'));
    try {
      const target = newReplayFile(path.join(dir, 'replay.bin'));
      const writer = replayWriter(target);
      for (let i = 0; i < 1_500; i++) writer.add(request(i));
      writer.flush();
      const read = [...readReplayFile(target)];
      expect(read).toHaveLength(1_500);
      expect(read).toEqual(Array.from({ length: 1_500 }, (_, i) => request(i)));
      expect(fs.readFileSync(target.file).includes('4111111111111111')).toBe(false);
      expect(() => [...readReplayFile({ ...target, key: '00'.repeat(32) })]).toThrow();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads nothing when nothing was written', () => {
    expect([...readReplayFile(newReplayFile(path.join(os.tmpdir(), 'pagi-replay-none.bin')))]).toEqual([]);
  });
});
