/** `pagi-conform serve` in a child process, for the tests of stopping and of connections. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { KIT_ROOT } from '../../src/spec/paths.js';

/** A `serve` child process with its output. */
export async function serve(args: string[], options: { shell?: string } = {}) {
  const cli = [path.join(KIT_ROOT, 'bin', 'pagi-conform.js'), 'serve', '--port', '0', ...args];
  const child: ChildProcess = options.shell
    ? spawn('bash', ['-c', `${options.shell}; exec "$0" "$@"`, process.execPath, ...cli], { cwd: KIT_ROOT })
    : spawn(process.execPath, cli, { cwd: KIT_ROOT });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const until = async (re: RegExp, ms = 15_000) => {
    for (const end = Date.now() + ms; !re.test(out) && Date.now() < end; ) await new Promise((r) => setTimeout(r, 25));
    return re.exec(out);
  };
  const url = (await until(/listening on (http:\/\/127\.0\.0\.1:(\d+))/))?.[1];
  if (!url) throw new Error(`serve did not start: ${out}`);
  return { child, url, port: Number(new URL(url).port), out: () => out, exited, until };
}
