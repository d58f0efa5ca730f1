import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { StatementCloser } from './statement-closer.js';

/**
 * A server closes the months that are due (after their grace period) every STATEMENT_CLOSE_INTERVAL_MS. Every node may run it: a month's statement is appended once (see StatementCloser).
 */
@Injectable()
export class StatementSchedule implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Statements');
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly closer: StatementCloser,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.runProjections) return;
    const tick = () => {
      this.running ??= this.closeDue().finally(() => (this.running = undefined));
    };
    this.timer = setInterval(tick, this.config.statementCloseIntervalMs);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private async closeDue(): Promise<void> {
    try {
      const outcomes = await this.closer.closeDue({ type: 'system', id: 'statement-schedule' });
      const closed = outcomes.filter((o) => o.outcome === 'closed');
      if (closed.length > 0) this.logger.log(`closed ${closed.length} statements`);
    } catch (error) {
      this.logger.warn(`closing due months failed (retried at the next interval): ${(error as Error).message}`);
    }
  }
}
