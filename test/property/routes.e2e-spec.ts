import fc from 'fast-check';
import { type Plan, ROUTES, extraHeaders, fcParams, planFor, rawBody, routeKey, unknownPath } from './arbitraries.js';
import { type FuzzApp, Fuzzer, startFuzzApp } from './harness.js';

/** A Fastify route URL as an OpenAPI path: `:name` → `{name}`, a trailing `*` → `{path}`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}');

/**
 * Every route of the running app, fuzzed with junk of every kind (bodies, content types, headers, query strings,
 * path parameters, credentials), valid requests among it. No 5xx, no hang, JSON error bodies, no charge for a
 * refusal and exactly one for a success, no partial state after a refused control-plane write.
 * Reproduce a failure with the seed (and path) it prints: FC_SEED=… FC_PATH=… npm test -- test/property/routes
 */
describe('property: every route, any input', () => {
  let fz: FuzzApp;
  let fuzzer: Fuzzer;

  beforeAll(async () => {
    fz = await startFuzzApp();
    fuzzer = new Fuzzer(fz);
  }, 60_000);
  afterAll(async () => {
    fuzzer?.report();
    await fz?.close();
  });

  test('the fuzzed routes are exactly the registered ones, and the documented ones', async () => {
    const fuzzed = ROUTES.map((r) => routeKey(r).replace('{dashboard}', fz.dashboard));
    const registered = fz.registered
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method} ${openApiPath(r.url)}`);
    expect(registered.length).toBeGreaterThan(30);
    expect(registered.filter((route) => !fuzzed.includes(route))).toEqual([]);
    expect(fuzzed.filter((route) => !registered.includes(route))).toEqual([]);

    const response = await fetch(`${fz.app.url}/openapi.json`);
    const doc = (await response.json()) as { paths: Record<string, Record<string, { responses?: object }>> };
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((route) => !fuzzed.includes(route))).toEqual([]);
    // A route documented with a 402 is metered: the fuzz must know it, to check its charges (MCP refusals are
    // tool results, so /mcp documents no 402).
    const metered = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.responses && '402' in operation.responses)
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(metered.sort()).toEqual(
      ROUTES.filter((r) => (r.metered || r.deferred) && r.path !== '/mcp')
        .map(routeKey)
        .sort(),
    );
  });

  test('any request to any route', async () => {
    const plans = fc.oneof(...ROUTES.map((route) => planFor(route, fz.ctx, 'mixed')));
    await fc.assert(fuzzer.property(plans), fcParams(250, 270_000));
  }, 300_000);

  test('unknown paths and methods: a JSON 404 (or 405), nothing charged', async () => {
    const plans = fc
      .record({
        method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'FOO'),
        path: unknownPath,
        headers: extraHeaders,
        body: rawBody,
      })
      .map(({ method, path, headers, body }): Plan => ({
        route: `GET ${path}`,
        method,
        params: {},
        slash: 'none',
        query: '',
        credential: { kind: 'none' },
        body,
        contentType: 'application/json',
        headers,
      }));
    await fc.assert(fuzzer.property(plans), fcParams(60, 100_000));
  }, 120_000);
});
