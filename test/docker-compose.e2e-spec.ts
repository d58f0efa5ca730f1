import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { PROJECT_ROOT } from './support/app-process.js';

/**
 * docker-compose.yml as a user runs it (`docker compose up`). No Docker engine runs here, so the file is checked by
 * reading it: what the app's environment names exists, every long-running service has a health check, volumes are
 * declared, and no secret is committed. SearXNG's first-start script runs for real in a temporary folder.
 */
interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] | string };
  restart?: string;
  ports?: string[];
  command?: string[];
}
interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const run = promisify(execFile);
const SECRET_NAMES = /(KEY|SECRET|TOKEN|PASSWORD)$/;

describe('docker-compose.yml', () => {
  let compose: Compose;
  let app: Service;

  beforeAll(async () => {
    compose = parse(await readFile(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8')) as Compose;
    app = compose.services.app!;
  });

  test('every host the app is configured to reach is a service it waits for, healthy', () => {
    const urls = ['DATABASE_URL', 'REDIS_URL', 'EVENTSTORE_URL', 'SEARXNG_URL'].map((name) => app.environment?.[name]);
    expect(urls.every((url) => typeof url === 'string')).toBe(true);
    for (const url of urls as string[]) {
      const host = new URL(url).hostname;
      expect(Object.keys(compose.services)).toContain(host);
      expect(app.depends_on?.[host]).toEqual({ condition: 'service_healthy' });
      expect(compose.services[host]!.healthcheck).toBeDefined();
    }
  });

  test('health checks on every long-running service, and the named volumes they mount are declared', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.restart !== 'no')
        expect({ name, healthcheck: Boolean(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.') || source.startsWith('/'))
          expect(existsSync(path.join(PROJECT_ROOT, source))).toBe(true);
        else expect(Object.keys(compose.volumes)).toContain(source);
      }
      for (const dependency of Object.keys(service.depends_on ?? {}))
        expect(Object.keys(compose.services)).toContain(dependency);
    }
  });

  test('SearXNG: JSON enabled, no bot limiter for its one internal client, no published port, no committed secret', async () => {
    const searxng = compose.services.searxng!;
    expect(searxng.image).toMatch(/^searxng\/searxng:/);
    expect(searxng.ports).toBeUndefined();
    expect(searxng.depends_on?.['searxng-init']).toEqual({ condition: 'service_completed_successfully' });
    const settings = parse(await readFile(path.join(PROJECT_ROOT, 'deploy/searxng/settings.yml'), 'utf8')) as {
      use_default_settings: boolean;
      server: { secret_key: string; limiter: boolean; public_instance: boolean };
      search: { formats: string[] };
    };
    expect(settings.use_default_settings).toBe(true);
    expect(settings.search.formats).toContain('json');
    expect(settings.server.limiter).toBe(false);
    expect(settings.server.public_instance).toBe(false);
    expect(settings.server.secret_key).toBe('ultrasecretkey');
  });

  test('no secret in any service environment (only the local PostgreSQL password of the private network)', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (!SECRET_NAMES.test(variable)) continue;
        expect({ name, variable, value }).toEqual({
          name: 'postgres',
          variable: 'POSTGRES_PASSWORD',
          value: 'postgres',
        });
      }
    }
    expect(compose.services.postgres!.ports).toBeUndefined();
  });

  test('searxng-init writes the settings once with a fresh 256-bit secret, and keeps them on later starts', async () => {
    const script = compose.services['searxng-init']!.command!.at(-1)!;
    const dir = await mkdtemp(path.join(tmpdir(), 'searxng-init-'));
    try {
      const local = script
        .replaceAll('$$', '$')
        .replaceAll('/etc/searxng', path.join(dir, 'config'))
        .replaceAll('/template', path.join(PROJECT_ROOT, 'deploy/searxng'))
        .replace(/chown -R 977:977 \S+/, process.getuid?.() === 0 ? '$&' : 'true');
      await run('mkdir', ['-p', path.join(dir, 'config')]);
      await writeFile(path.join(dir, 'init.sh'), local);
      await run('sh', ['-e', path.join(dir, 'init.sh')]);
      const first = await readFile(path.join(dir, 'config/settings.yml'), 'utf8');
      const secret = (parse(first) as { server: { secret_key: string } }).server.secret_key;
      expect(secret).toMatch(/^[0-9a-f]{64}$/);
      expect(first).not.toContain('ultrasecretkey');

      await run('sh', ['-e', path.join(dir, 'init.sh')]);
      expect(await readFile(path.join(dir, 'config/settings.yml'), 'utf8')).toBe(first);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
