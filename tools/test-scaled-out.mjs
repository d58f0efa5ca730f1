// npm run test:scaled-out [-- <jest arguments>]: existing suites against scaled-out engines. It starts a Redis Cluster
// (three masters, three replicas) and a PostgreSQL primary with a streaming replica (test/support's classes, compiled
// by tsconfig.scaled-out.json), then runs jest with DATABASE_URL on the primary, TEST_DATABASE_READ_URL on the replica
// and TEST_REDIS_CLUSTER_NODES on the cluster (test/support/test-services.ts hands them to every service the suites
// start). Test paths among the arguments replace the default lists. It fails when a jest run fails.
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SUITES = [
  'test/metering-concurrency.e2e-spec.ts',
  'test/metering.e2e-spec.ts',
  'test/budgets.e2e-spec.ts',
  'test/key-revocation.e2e-spec.ts',
  'test/api-keys.e2e-spec.ts',
  'test/ledger-verify.e2e-spec.ts',
  'test/ledger-usage.e2e-spec.ts',
  'test/ledger-entries.e2e-spec.ts',
  'test/cli-grants.e2e-spec.ts',
  'test/test-key-usage-headers.e2e-spec.ts',
  'test/faults/two-processes.e2e-spec.ts',
];
// On the cluster and the primary alone: these read dashboards and ledger pages, which the service reads from a
// replica lagging up to DATABASE_READ_MAX_LAG_MS (docs/operations.md), straight after their own writes.
const CLUSTER_ONLY_SUITES = ['test/credit-grants.e2e-spec.ts'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.scaled-out.json'], {
  stdio: 'inherit',
});
const support = path.join(root, 'dist/scaled-out/test/support');
const { PrivateRedisCluster } = await import(path.join(support, 'private-redis-cluster.js'));
const { ReplicatedPostgres } = await import(path.join(support, 'replicated-postgres.js'));

const started = Date.now();
// A 5 s node timeout: a node slowed by a loaded machine is not failed over in the middle of a suite.
const [cluster, postgres] = await Promise.allSettled([
  PrivateRedisCluster.start({ nodeTimeoutMs: 5_000 }),
  ReplicatedPostgres.start(),
]);
const stopEngines = () =>
  Promise.all([cluster, postgres].map((engine) => (engine.status === 'fulfilled' ? engine.value.stop() : null)));
if (cluster.status === 'rejected' || postgres.status === 'rejected') {
  await stopEngines();
  throw cluster.reason ?? postgres.reason;
}
const env = {
  DATABASE_URL: postgres.value.primaryUrl,
  TEST_DATABASE_READ_URL: postgres.value.replicaUrl,
  TEST_REDIS_CLUSTER_NODES: cluster.value.seedNodes,
};
console.log(`scaled-out engines ready in ${Date.now() - started} ms: ${JSON.stringify(env)}`);

const args = process.argv.slice(2);
const chosen = args.some((arg) => /\.ts$/.test(arg));
const passes = chosen
  ? [{ paths: [], env }]
  : [
      { paths: SUITES, env },
      { paths: CLUSTER_ONLY_SUITES, env: { ...env, TEST_DATABASE_READ_URL: '' } },
    ];
let jest;
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => jest?.kill(signal));
let failed = false;
for (const pass of passes) {
  jest = spawn(
    process.execPath,
    [
      '--experimental-vm-modules',
      '--no-warnings=ExperimentalWarning',
      'node_modules/jest/bin/jest.js',
      '--runTestsByPath',
      ...pass.paths,
      ...args,
    ],
    { stdio: 'inherit', env: { ...process.env, ...pass.env } },
  );
  const [code, signal] = await once(jest, 'exit');
  if (code !== 0 || signal) failed = true;
  if (signal) break;
}
await stopEngines();
process.exitCode = failed ? 1 : 0;
