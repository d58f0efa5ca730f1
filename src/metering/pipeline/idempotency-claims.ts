import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config.js';
import { isUnavailableDependency } from '../../http/unavailable-dependency.js';
import { type ClaimOwner, IDEMPOTENCY_STORE, type IdempotencyStore } from '../idempotency/idempotency.store.js';
import { requestFingerprint } from '../idempotency/request-fingerprint.js';
import { InflightCalls } from '../inflight-calls.js';
import { MESSAGES, MeteringException } from '../metering.errors.js';
import { retryWhileUnavailable } from '../retry-while-unavailable.js';
import type { Admitted, Claimed, MeteredCall } from './metered-call.js';
import { type MeteredResponse, replayOf } from './pipeline-answers.js';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * A call's Idempotency-Key: claimed before the work (a replay answers the first response, 409 while it runs, 422
 * for another body), its response noted before the charge is appended, completed or released when the call ends.
 * A key whose node died is replayed when its charge is durable and taken over when it is not.
 */
@Injectable()
export class IdempotencyClaims {
  private readonly logger = new Logger('Metering');

  constructor(
    @Inject(IDEMPOTENCY_STORE) readonly store: IdempotencyStore,
    private readonly inflight: InflightCalls,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A replay answers at once; otherwise the key is this call's (`admitted.claim`) until it is done. */
  async claim(call: MeteredCall, admitted: Admitted): Promise<MeteredResponse | null> {
    if (!call.idempotencyKey) return null;
    const claimed = await this.claimKey(call, admitted, randomUUID());
    if ('replay' in claimed) return claimed.replay;
    admitted.claim = claimed;
    return null;
  }

  /** The response a retry replays should this node die once its charge is appended (before the append). */
  async prepare(claim: Claimed, chargeId: string, response: MeteredResponse): Promise<void> {
    claim.owner = { ...claim.owner, charge: chargeId };
    await this.store.prepare(claim.key, claim.fingerprint, claim.owner, response);
  }

  /** The call is done: a retry replays `response` (a failure is only logged: the prepared response stands). */
  async complete(admitted: Admitted, response: MeteredResponse): Promise<void> {
    if (!admitted.claim) return;
    const { key, fingerprint } = admitted.claim;
    await this.store
      .complete(key, fingerprint, response)
      .catch((error: unknown) => this.logger.warn(`completing an Idempotency-Key failed: ${(error as Error).message}`));
  }

  /** The call failed: the key is free for a retry (unless its charge's outcome is unknown: kept until known). */
  async release(admitted: Admitted): Promise<void> {
    if (admitted.claim && !admitted.keepClaim) await this.store.release(admitted.claim.key).catch(() => {});
  }

  private async claimKey(
    call: MeteredCall,
    admitted: Admitted,
    chargeId: string,
  ): Promise<Claimed | { replay: MeteredResponse }> {
    const { caller, headers } = admitted;
    const given = call.idempotencyKey!;
    if (!IDEMPOTENCY_KEY.test(given)) {
      throw MeteringException.of(400, 'Idempotency-Key must be 1 to 255 printable ASCII characters.', headers);
    }
    const key = `${this.config.redisPrefix}idempotency:${caller.key.orgId}:${given}`;
    const fingerprint = requestFingerprint('POST', call.route, call.body);
    const owner: ClaimOwner = { node: this.inflight.nodeId, charge: chargeId };
    for (;;) {
      const claim = await this.store.claim(key, fingerprint, owner).catch((error: unknown) => {
        // It may have been made, its answer lost: left alone, a retry would meet "in progress" until it expires.
        if (isUnavailableDependency(error)) {
          void retryWhileUnavailable(
            () => this.store.abandon(key, fingerprint, owner),
            'abandoning an Idempotency-Key claim',
            this.logger,
          );
        }
        throw error;
      });
      switch (claim.state) {
        case 'claimed':
          return { key, fingerprint, owner };
        case 'done':
          return { replay: replayOf(claim.response) };
        case 'mismatch':
          throw MeteringException.of(422, MESSAGES.idempotencyMismatch, headers);
        case 'running': {
          const { node, charge, pending } = claim.record;
          if (!node || !charge || (await this.inflight.isAlive(node))) {
            throw MeteringException.of(409, MESSAGES.idempotencyRunning, headers);
          }
          // Its node died. Charged: the response was lost after the charge, replay it. Not charged: take it over.
          if (pending && (await this.inflight.isCharged(charge))) {
            await this.store.complete(key, fingerprint, pending);
            return { replay: replayOf(pending) };
          }
          if (await this.store.takeOver(key, claim.raw, fingerprint, owner)) return { key, fingerprint, owner };
          // Another retry came first: look again.
        }
      }
    }
  }
}
