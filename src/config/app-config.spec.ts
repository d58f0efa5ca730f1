import { ConfigError, loadConfig } from './app-config.js';

describe('loadConfig', () => {
  test('nothing configured is the embedded mode with defaults', () => {
    const config = loadConfig({});
    expect(config.mode).toBe('embedded');
    expect(config.port).toBe(3000);
    expect(config.databaseSchema).toBe('public');
    expect(config.dashboardUrl).toBe('http://localhost:3000/dashboard');
    expect(config.demoSeed).toBe(true);
  });

  test('DATABASE_URL switches to services mode and turns the demo seed off', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u@db/x', REDIS_URL: 'redis://r:6379', PORT: '8080' });
    expect(config.mode).toBe('services');
    expect(config.port).toBe(8080);
    expect(config.demoSeed).toBe(false);
  });

  test('INDEX_DATABASE_URL: the main database by default; its own pool size; refused in embedded mode', () => {
    const main = 'postgres://u@db/x';
    expect(loadConfig({ DATABASE_URL: main, DATABASE_POOL_SIZE: '7' })).toMatchObject({
      indexDatabaseUrl: undefined,
      indexDatabasePoolSize: 7,
    });
    expect(loadConfig({ DATABASE_URL: main, INDEX_DATABASE_URL: main }).indexDatabaseUrl).toBeUndefined();
    expect(
      loadConfig({ DATABASE_URL: main, INDEX_DATABASE_URL: 'postgres://u@index/y', INDEX_DATABASE_POOL_SIZE: '3' }),
    ).toMatchObject({ indexDatabaseUrl: 'postgres://u@index/y', indexDatabasePoolSize: 3 });
    expect(() => loadConfig({ DATABASE_URL: main, INDEX_DATABASE_URL: 'mysql://x' })).toThrow(/INDEX_DATABASE_URL/);
    expect(() => loadConfig({ INDEX_DATABASE_URL: 'postgres://u@index/y' })).toThrow(
      /INDEX_DATABASE_URL needs DATABASE_URL/,
    );
  });

  test('bad values are all reported by name', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', DATABASE_URL: 'mysql://x', EVENTSTORE_URL: 'http://es', LOG_LEVEL: 'loud' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(/PORT/);
    expect(message).toMatch(/DATABASE_URL/);
    expect(message).toMatch(/EVENTSTORE_URL/);
    expect(message).toMatch(/LOG_LEVEL/);
  });

  test('REDIS_CLUSTER_NODES: seed nodes as redis:// URLs; with REDIS_URL too, a configuration error naming both', () => {
    expect(loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, redis://10.0.0.2:7001' }).redisClusterNodes).toEqual([
      'redis://10.0.0.1:7000',
      'redis://10.0.0.2:7001',
    ]);
    expect(loadConfig({}).redisClusterNodes).toEqual([]);
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'not a node' })).toThrow(/REDIS_CLUSTER_NODES/);
    expect(() => loadConfig({ REDIS_URL: 'redis://r:6379', REDIS_CLUSTER_NODES: 'r:7000' })).toThrow(
      /REDIS_URL and REDIS_CLUSTER_NODES are both set/,
    );
  });

  test('the event-loop watchdog ends the process after 30 s by default; its limit is at least 1 s', () => {
    expect(loadConfig({})).toMatchObject({ eventLoopBlockLimitMs: 30000, watchdogAction: 'exit' });
    expect(loadConfig({ EVENT_LOOP_BLOCK_LIMIT_MS: '5000', WATCHDOG_ACTION: 'log' })).toMatchObject({
      eventLoopBlockLimitMs: 5000,
      watchdogAction: 'log',
    });
    expect(() => loadConfig({ EVENT_LOOP_BLOCK_LIMIT_MS: '500' })).toThrow(/EVENT_LOOP_BLOCK_LIMIT_MS/);
    expect(() => loadConfig({ WATCHDOG_ACTION: 'restart' })).toThrow(/WATCHDOG_ACTION/);
  });

  test('OPERATOR_EMAILS: nobody by default; a comma-separated list of addresses, normalised as sign-in does', () => {
    expect(loadConfig({}).operatorEmails).toEqual([]);
    expect(loadConfig({ OPERATOR_EMAILS: ' Ops@Example.TEST , second@example.test,' }).operatorEmails).toEqual([
      'ops@example.test',
      'second@example.test',
    ]);
    expect(() => loadConfig({ OPERATOR_EMAILS: 'ops@example.test, root' })).toThrow(
      /OPERATOR_EMAILS: "root" is not an e-mail address/,
    );
  });

  test('an absolute DASHBOARD_URL is kept as given', () => {
    expect(loadConfig({ DASHBOARD_URL: 'https://app.example.com/' }).dashboardUrl).toBe('https://app.example.com');
  });

  test('REDIS_COMMAND_TIMEOUT_MS: 1000 by default, a number of milliseconds from 50 to 60000', () => {
    expect(loadConfig({}).redisCommandTimeoutMs).toBe(1000);
    expect(loadConfig({ REDIS_COMMAND_TIMEOUT_MS: '250' }).redisCommandTimeoutMs).toBe(250);
    for (const value of ['soon', '10', '600000', '1.5'])
      expect(() => loadConfig({ REDIS_COMMAND_TIMEOUT_MS: value })).toThrow(/REDIS_COMMAND_TIMEOUT_MS/);
  });

  test('REDIS_STALL_TIMEOUT_MS: 3000 by default, 0 (never) or 200 to 600000 milliseconds', () => {
    expect(loadConfig({}).redisStallTimeoutMs).toBe(3000);
    expect(loadConfig({ REDIS_STALL_TIMEOUT_MS: '0' }).redisStallTimeoutMs).toBe(0);
    expect(loadConfig({ REDIS_STALL_TIMEOUT_MS: '1500' }).redisStallTimeoutMs).toBe(1500);
    for (const value of ['later', '100', '-1', '700000', '2.5'])
      expect(() => loadConfig({ REDIS_STALL_TIMEOUT_MS: value })).toThrow(/REDIS_STALL_TIMEOUT_MS/);
  });

  test('DATABASE_READ_URL: a replica of DATABASE_URL, none by default; refused in embedded mode', () => {
    const services = { DATABASE_URL: 'postgres://primary/db' };
    expect(loadConfig(services)).toMatchObject({ databaseReadUrl: undefined, databaseReadMaxLagMs: 2000 });
    expect(
      loadConfig({ ...services, DATABASE_READ_URL: 'postgres://replica/db', DATABASE_READ_MAX_LAG_MS: '500' }),
    ).toMatchObject({ databaseReadUrl: 'postgres://replica/db', databaseReadMaxLagMs: 500 });
    expect(() => loadConfig({ ...services, DATABASE_READ_URL: 'mysql://replica/db' })).toThrow(/DATABASE_READ_URL/);
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://replica/db' })).toThrow(
      /DATABASE_READ_URL .*set DATABASE_URL too \(embedded mode has no read replica\)/,
    );
    for (const value of ['soon', '50', '700000'])
      expect(() => loadConfig({ ...services, DATABASE_READ_MAX_LAG_MS: value })).toThrow(/DATABASE_READ_MAX_LAG_MS/);
  });

  test("INDEX_DATABASE_READ_URL: a replica of the index's own database; refused without INDEX_DATABASE_URL", () => {
    const services = { DATABASE_URL: 'postgres://primary/db', INDEX_DATABASE_URL: 'postgres://index/db' };
    expect(loadConfig(services).indexDatabaseReadUrl).toBeUndefined();
    expect(loadConfig({ ...services, INDEX_DATABASE_READ_URL: 'postgres://index-replica/db' })).toMatchObject({
      indexDatabaseUrl: 'postgres://index/db',
      indexDatabaseReadUrl: 'postgres://index-replica/db',
    });
    expect(() => loadConfig({ ...services, INDEX_DATABASE_READ_URL: 'mysql://x/db' })).toThrow(
      /INDEX_DATABASE_READ_URL/,
    );
    for (const index of [{}, { INDEX_DATABASE_URL: 'postgres://primary/db' }]) {
      expect(() =>
        loadConfig({ DATABASE_URL: 'postgres://primary/db', ...index, INDEX_DATABASE_READ_URL: 'postgres://r/db' }),
      ).toThrow(/INDEX_DATABASE_READ_URL is a replica of INDEX_DATABASE_URL/);
    }
  });

  test('MCP tools: search and extract by default; MCP_TOOLS adds operations; MCP_TOOL_NAMES picks the naming', () => {
    expect(loadConfig({})).toMatchObject({ mcpTools: ['search', 'extract'], mcpToolNames: 'plain' });
    expect(loadConfig({ MCP_TOOLS: ' research, Map,search ,extract,crawl', MCP_TOOL_NAMES: 'tavily' })).toMatchObject({
      mcpTools: ['search', 'extract', 'crawl', 'map', 'research'],
      mcpToolNames: 'tavily',
    });
    expect(() => loadConfig({ MCP_TOOLS: 'search,extract,usage' })).toThrow(
      /MCP_TOOLS names an unknown operation "usage"/,
    );
    expect(() => loadConfig({ MCP_TOOLS: 'search,crawl' })).toThrow(/MCP_TOOLS must include extract/);
    expect(() => loadConfig({ MCP_TOOLS: 'search,extract,map,map' })).toThrow(/MCP_TOOLS names an operation twice/);
    expect(() => loadConfig({ MCP_TOOLS: 'search,,extract' })).toThrow(/MCP_TOOLS names an unknown operation ""/);
    expect(() => loadConfig({ MCP_TOOL_NAMES: 'snake' })).toThrow(/MCP_TOOL_NAMES must be one of plain, tavily/);
  });

  test('the page cache: a day by default, written to the index unless INDEX_READ_PAGES=false', () => {
    expect(loadConfig({})).toMatchObject({ pageCacheMaxAgeSeconds: 86400, indexReadPages: true, rerank: null });
    expect(loadConfig({ PAGE_CACHE_MAX_AGE_SECONDS: '0', INDEX_READ_PAGES: 'false' })).toMatchObject({
      pageCacheMaxAgeSeconds: 0,
      indexReadPages: false,
    });
    expect(() => loadConfig({ PAGE_CACHE_MAX_AGE_SECONDS: '-1' })).toThrow(/PAGE_CACHE_MAX_AGE_SECONDS/);
  });

  test('RERANK_URL: the format follows the path unless RERANK_FORMAT says; 800 ms by default', () => {
    expect(loadConfig({ RERANK_URL: 'http://tei:8080/' }).rerank).toEqual({
      url: 'http://tei:8080',
      format: 'tei',
      model: null,
      apiKey: null,
      timeoutMs: 800,
    });
    expect(loadConfig({ RERANK_URL: 'https://api.cohere.com/v1' }).rerank?.format).toBe('cohere');
    expect(loadConfig({ RERANK_URL: 'https://api.jina.ai/v1/rerank' }).rerank?.format).toBe('cohere');
    expect(loadConfig({ RERANK_URL: 'http://gw/rr', RERANK_FORMAT: 'cohere' }).rerank?.format).toBe('cohere');
    expect(() => loadConfig({ RERANK_URL: 'http://tei', RERANK_FORMAT: 'bge' })).toThrow(/RERANK_FORMAT/);
    expect(() => loadConfig({ RERANK_URL: 'http://tei', RERANK_TIMEOUT_MS: '10' })).toThrow(/RERANK_TIMEOUT_MS/);
  });
});
