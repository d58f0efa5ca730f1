import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApp } from '../src/app/create-app.js';
import { loadConfig } from '../src/config/app-config.js';
import { Database } from '../src/database/database.js';
import { DemoSeedService } from '../src/demo/demo-seed.service.js';
import { KeyLookupService } from '../src/keys/key-lookup.service.js';
import { RequestLogWriter } from '../src/request-log/request-log.writer.js';

/**
 * The default mode: nothing configured but a data directory. PGlite in-process, served to `pg` over loopback.
 * A fresh data directory costs PGlite's initdb (~3.6 s quiet) and every migration (~2.4 s); on CI beside another
 * heavy suite that grew past 60 s, hence the budgets below (they bound a hang, not the speed).
 */
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
  }, 180_000);

  test('the request log is written in embedded mode too: answered and refused calls, off the request path', async () => {
    const ownDir = await mkdtemp(path.join(tmpdir(), 'embedded-log-'));
    const app = await createApp(loadConfig({ DATA_DIR: ownDir, LOG_LEVEL: 'silent' }));
    try {
      await app.listen(0, '127.0.0.1');
      const demoKey = await app.get(DemoSeedService).seedOnce();
      expect(demoKey).toMatch(/^sk_live_/);
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const post = (body: unknown) =>
        fetch(`${url}/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await post({ query: 'embedded request log' })).status).toBe(200);
      expect((await post({ query: 7 })).status).toBe(400);
      const db = app.get(Database);
      const writer = app.get(RequestLogWriter);
      let statuses: number[] = [];
      for (let i = 0; i < 100 && statuses.length < 2; i++) {
        await writer.flush();
        statuses = (await db.query<{ status: number }>('SELECT status FROM request_log ORDER BY id')).rows.map(
          (r) => r.status,
        );
        if (statuses.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(statuses).toEqual([200, 400]);
    } finally {
      await app.close();
      await rm(ownDir, { recursive: true, force: true });
    }
  }, 180_000);
});
