import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { FETCHER, type Fetcher, ROBOTS_POLICY } from './fetcher.port.js';
import { HostScheduler } from './host-scheduler.js';
import { RobotsTxtPolicy } from './robots.js';
import { SafeFetcher } from './safe-fetcher.js';
import { TargetScreen } from './target-screen.js';

/**
 * The web engine's fetching layer, for every module: `@Inject(FETCHER) fetcher: Fetcher`,
 * `@Inject(ROBOTS_POLICY) robots: RobotsPolicy`, and `HostScheduler` and `TargetScreen` (by class).
 */
@Global()
@Module({
  providers: [
    {
      provide: SafeFetcher,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new SafeFetcher({ userAgent: config.fetchUserAgent, allowHosts: config.fetchAllowHosts }),
    },
    { provide: FETCHER, useExisting: SafeFetcher },
    { provide: TargetScreen, inject: [SafeFetcher], useFactory: (fetcher: SafeFetcher) => fetcher.screen },
    {
      provide: ROBOTS_POLICY,
      inject: [FETCHER, APP_CONFIG],
      useFactory: (fetcher: Fetcher, config: AppConfig) => new RobotsTxtPolicy(fetcher, config.fetchUserAgent),
    },
    {
      provide: HostScheduler,
      inject: [SafeFetcher, APP_CONFIG],
      useFactory: (fetcher: SafeFetcher, config: AppConfig) => {
        const owned = config.fetchOwnedHostConcurrency;
        // Hosts the operator runs (named in FETCH_ALLOW_HOSTS) may take more requests at once, when configured.
        return new HostScheduler(
          owned === null ? {} : { concurrencyFor: (host) => (fetcher.policy.isAllowListed(host) ? owned : null) },
        );
      },
    },
  ],
  exports: [FETCHER, ROBOTS_POLICY, HostScheduler, TargetScreen],
})
export class FetchModule implements OnApplicationShutdown {
  constructor(@Inject(SafeFetcher) private readonly fetcher: SafeFetcher) {}

  async onApplicationShutdown(): Promise<void> {
    await this.fetcher.close();
  }
}
