import { Controller, Get, Module } from '@nestjs/common';
import { type TestApp, dropSchema, startTestApp } from './support/test-app.js';

@Controller('test')
class NeverAnsweringController {
  /** A request whose handler never ends (a stuck upstream, a lost promise). */
  @Get('never')
  never(): Promise<never> {
    return new Promise<never>(() => {});
  }
}

@Module({ controllers: [NeverAnsweringController] })
class NeverAnsweringModule {}

/**
 * A graceful close waits for the requests in flight, but not for ever: a request that never ends holds it at most
 * the close grace (10 s), after which the connections left are closed and the close ends (a SIGTERM always ends).
 */
describe('closing the app while a request never ends', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ redis: false, modules: [NeverAnsweringModule] });
  });
  afterAll(async () => {
    await dropSchema(app.schema);
  });

  test('the close ends within the grace, and the stuck request is cut off', async () => {
    const stuck = fetch(`${app.url}/test/never`).then(
      () => 'answered',
      () => 'cut off',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    await app.close();
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(9_000);
    expect(took).toBeLessThan(14_000);
    expect(await stuck).toBe('cut off');
  }, 30_000);
});
