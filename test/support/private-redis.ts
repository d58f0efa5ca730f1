import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from './ports.js';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

/**
 * A redis-server of the test's own, on a loopback port, keeping nothing on disk: killing it loses every key.
 * `kill()` is SIGKILL (no shutdown, no save); `start()` brings a fresh, empty server up on the same port.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async start(timeoutMs = 10_000): Promise<void> {
    if (this.child) return;
    const child = spawn(
      REDIS_SERVER,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child = child;
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    const deadline = Date.now() + timeoutMs;
    while (!output.includes('Ready to accept connections')) {
      if (this.child !== child) throw new Error(`redis-server exited on port ${this.port}: ${output}`);
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(`redis-server did not start on port ${this.port} within ${timeoutMs} ms: ${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.stdout!.off('data', collect);
    child.stderr!.off('data', collect);
    child.stdout!.resume();
    child.stderr!.resume();
  }

  /**
   * SIGSTOP: the server freezes with its connections open. The kernel still accepts new connections and takes the
   * bytes sent on them; nothing is read or answered until `thaw()`.
   */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  /** SIGCONT: the frozen server reads what was sent meanwhile (on connections since closed too) and answers. */
  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  /** SIGKILL: the server dies at once and its data with it. Resolves once the process is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
  }
}
