import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import type { Position } from '../../event-store/event-store.port.js';
import { CHARGED_TOTALS, type ChargedTotals } from '../charged-totals.port.js';
import type { SeedValue } from './credit-counters.js';

/**
 * Starting values of counters that are missing (first call of a month, or Redis lost its data): the charged totals
 * as of a position of the store (see ChargedTotals), which says exactly which charges a value includes.
 */
@Injectable()
export class CounterSeeds {
  constructor(
    @Inject(CHARGED_TOTALS) private readonly totals: ChargedTotals,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  liveCredits(orgId: string, month: string): Promise<SeedValue> {
    return this.totals.liveCredits(orgId, month);
  }

  testCredits(orgId: string, month: string): Promise<SeedValue> {
    return this.totals.testCredits(orgId, month);
  }

  keyCredits(orgId: string, keyId: string, month: string): Promise<SeedValue> {
    return this.totals.keyCredits(orgId, keyId, month);
  }

  projectLiveCredits(orgId: string, projectId: string, month: string): Promise<SeedValue> {
    return this.totals.projectLiveCredits(orgId, projectId, month);
  }

  units(orgId: string, month: string, environment: string, priceClass: string): Promise<SeedValue> {
    return this.totals.units(orgId, month, environment, priceClass);
  }

  /** The position of a charge in the store, from the ledger once it includes every stored event; null if absent. */
  chargePosition(chargeId: string): Promise<Position | null> {
    return this.totals.chargePosition(chargeId);
  }

  /**
   * The position of a charge known to be durable: it shows in the ledger once the projector applied it (and once no
   * older transaction still runs, as the store reads only what is safely committed), so this looks until it does.
   */
  async durableChargePosition(chargeId: string): Promise<Position> {
    const deadline = Date.now() + this.config.projectionWaitTimeoutMs;
    for (;;) {
      const position = await this.chargePosition(chargeId);
      if (position) return position;
      if (Date.now() > deadline) throw new Error(`charge ${chargeId} is not in the ledger yet`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
