/**
 * The local API server (test/server/cli.ts) in a child process, for the benchmarks: started with
 * `args` on a free loopback port, its address read from what it prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface BenchServer {
  url: string;
  child: ChildProcess;
  /** What the server has printed so far. */
  out(): string;
  stop(): void;
}

export async function startApiServer(args: string[]): Promise<BenchServer> {
  const cli = join(__dirname, '..', 'server', 'cli.js');
  const child = spawn(process.execPath, [cli, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the API server exited (${code}) before listening:\n${out}`)));
  });
  return { url, child, out: () => out, stop: () => child.kill('SIGTERM') };
}
