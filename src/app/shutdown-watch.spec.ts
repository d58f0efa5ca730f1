import { Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { pendingShutdownHooks, watchShutdownHooks } from './shutdown-watch.js';

@Injectable()
class SlowToStop implements OnApplicationShutdown {
  release!: () => void;
  readonly stopped = new Promise<void>((resolve) => (this.release = resolve));
  async onApplicationShutdown(): Promise<void> {
    await this.stopped;
  }
}

@Module({ providers: [SlowToStop] })
class SlowModule {}

describe('watchShutdownHooks', () => {
  test('names a shutdown hook while it runs, and nothing once it has returned', async () => {
    const app = await NestFactory.createApplicationContext(SlowModule, { logger: false });
    const warnings: string[] = [];
    watchShutdownHooks(app, { log: () => {}, error: () => {}, warn: (message: string) => warnings.push(message) });
    expect(pendingShutdownHooks(app)).toEqual([]);

    const closed = app.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pendingShutdownHooks(app)).toEqual(['SlowToStop.onApplicationShutdown']);

    const slow = app.get(SlowToStop);
    slow.release();
    await closed;
    expect(pendingShutdownHooks(app)).toEqual([]);
  });
});
