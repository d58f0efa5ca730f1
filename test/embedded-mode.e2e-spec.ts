import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';

/** The default mode: nothing configured but a data directory. PGlite in-process, served to `pg` over loopback. */
describe('embedded mode', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'embedded-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    expect(config.mode).toBe('embedded');
    const app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    return app;
  };

  test('the first start seeds a demo organization with a live key that authenticates; later starts keep it and print nothing', async () => {
    const first = await start();
    let demoKey: string | null;
    try {
      demoKey = await first.get(DemoSeedService).seedOnce();
      expect(demoKey).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
      const record = await first.get(KeyLookupService).lookup(demoKey!);
      expect(record).toMatchObject({ environment: 'live', status: 'active', depthLimit: null });
      expect([...(record?.scopes ?? [])].sort()).toEqual([
        'crawl',
        'extract',
        'map',
        'mcp',
        'research',
        'search',
        'verticals',
      ]);
      const portFile = JSON.parse(await readFile(path.join(dataDir, 'embedded-postgres.json'), 'utf8')) as {
        connectionString: string;
      };
      expect(portFile.connectionString).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\//);
      const readyz = await fetch(`${(await first.getUrl()).replace('[::1]', '127.0.0.1')}/healthz`);
      expect(readyz.status).toBe(200);
    } finally {
      await first.close();
    }

    const second = await start();
    try {
      expect(await second.get(DemoSeedService).seedOnce()).toBeNull();
      expect((await second.get(KeyLookupService).lookup(demoKey!))?.status).toBe('active');
      const orgs = await second.get(Database).query('SELECT count(*)::int AS n FROM organizations');
      expect(orgs.rows[0]).toEqual({ n: 1 });
    } finally {
      await second.close();
    }
  }, 60_000);
});
