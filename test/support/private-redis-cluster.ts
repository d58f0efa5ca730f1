import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const REDIS_SERVER = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';
const REDIS_CLI = process.env.REDIS_CLI_BIN ?? '/usr/bin/redis-cli';
const run = promisify(execFile);

/** Whether a port on 127.0.0.1 can be bound now. */
async function bindable(port: number): Promise<boolean> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    server.close();
  }
}

/** A port whose cluster bus port (port + 10000) is free too. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await bindable(port)) && (await bindable(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
}

interface ClusterNode {
  readonly port: number;
  child: ChildProcess | undefined;
  frozen: boolean;
}

/**
 * A Redis Cluster of the test's own: three masters with one replica each, on loopback ports, keeping nothing on disk
 * (their cluster config files under a temporary directory). A node that stops answering is taken for failed after
 * `nodeTimeoutMs` and its replica takes over. `stop()` kills every node and removes the directory.
 */
export class PrivateRedisCluster {
  private constructor(
    private readonly dir: string,
    private readonly nodes: ClusterNode[],
  ) {}

  static async start(options: { nodeTimeoutMs?: number } = {}): Promise<PrivateRedisCluster> {
    const dir = await mkdtemp(join(tmpdir(), 'redis-cluster-'));
    const taken = new Set<number>();
    const nodes: ClusterNode[] = [];
    for (let i = 0; i < 6; i++) nodes.push({ port: await clusterPort(taken), child: undefined, frozen: false });
    const cluster = new PrivateRedisCluster(dir, nodes);
    try {
      await Promise.all(nodes.map((node) => cluster.spawnNode(node, options.nodeTimeoutMs ?? 1000)));
      await run(REDIS_CLI, [
        '--cluster',
        'create',
        ...nodes.map((node) => `127.0.0.1:${node.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ]);
      await cluster.waitUntilOk();
    } catch (error) {
      await cluster.stop();
      throw error;
    }
    return cluster;
  }

  /** The seed nodes, as REDIS_CLUSTER_NODES wants them. */
  get seedNodes(): string {
    return this.nodes.map((node) => `127.0.0.1:${node.port}`).join(',');
  }

  /** The ports of the nodes that are masters now (as the first running node sees it). */
  async masterPorts(): Promise<number[]> {
    const answering = this.answering()[0]!;
    const { stdout } = await run(REDIS_CLI, ['-p', String(answering.port), 'cluster', 'nodes'], { timeout: 2_000 });
    return stdout
      .split('\n')
      .filter((line) => / master /.test(line) || /,master /.test(line))
      .filter((line) => !/fail/.test(line.split(' ')[2] ?? ''))
      .map((line) => Number(/:(\d+)@/.exec(line)![1]));
  }

  /** SIGSTOP of the node on `port`: it freezes with its connections open (the cluster fails it over). */
  freeze(port: number): void {
    const node = this.nodes.find((n) => n.port === port)!;
    node.frozen = true;
    node.child?.kill('SIGSTOP');
  }

  /** SIGCONT: the frozen node reads what was sent meanwhile, and rejoins (as a replica once failed over). */
  thaw(port: number): void {
    const node = this.nodes.find((n) => n.port === port)!;
    node.frozen = false;
    node.child?.kill('SIGCONT');
  }

  /** SIGKILL of the node on `port`: it dies at once, with its data. Resolves once the process is gone. */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port)!;
    const child = node.child;
    if (!child) return;
    node.child = undefined;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    if (node.frozen) child.kill('SIGCONT');
    await exited;
  }

  /**
   * Resolves once every answering node (running, not frozen) says cluster_state:ok and three masters, all answering
   * (after a kill or a freeze: once a replica has taken that master's place).
   */
  async waitUntilOk(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const states = await Promise.all(
        this.answering().map((node) =>
          run(REDIS_CLI, ['-p', String(node.port), 'cluster', 'info'], { timeout: 2_000 }).then(
            ({ stdout }) => stdout,
            () => '',
          ),
        ),
      );
      const ok = states.every((info) => info.includes('cluster_state:ok'));
      const running = new Set(this.answering().map((node) => node.port));
      const masters = ok ? await this.masterPorts() : [];
      if (masters.length === 3 && masters.every((port) => running.has(port))) return;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster is not ok after ${timeoutMs} ms: ${states[0]}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => this.kill(node.port)));
    await rm(this.dir, { recursive: true, force: true });
  }

  private answering(): ClusterNode[] {
    return this.nodes.filter((node) => node.child && !node.frozen);
  }

  private async spawnNode(node: ClusterNode, nodeTimeoutMs: number): Promise<void> {
    const child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(node.port),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(this.dir, `nodes-${node.port}.conf`),
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.dir,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    node.child = child;
    let output = '';
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', () => {
      if (node.child === child) node.child = undefined;
    });
    const deadline = Date.now() + 10_000;
    while (!output.includes('Ready to accept connections')) {
      if (node.child !== child) throw new Error(`redis-server exited on port ${node.port}: ${output}`);
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${node.port}: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.stdout!.off('data', collect);
    child.stderr!.off('data', collect);
    child.stdout!.resume();
    child.stderr!.resume();
  }
}
