import { BadGatewayException, HttpException, Logger } from '@nestjs/common';
import { untilAborted as untilSignalAborts } from '../common/until-aborted.js';
import { SearchBudgetSpent } from './load/search-deadline.js';
import { errorBody } from '../http/error-body.js';
import type { ProviderSearchRequest, SearchHit, SearchProvider } from './providers/search-provider.port.js';

/** One provider's answer, in its own order (best first). */
export interface ProviderHits {
  readonly provider: string;
  readonly hits: readonly SearchHit[];
}

const logger = new Logger('SearchProviders');

/**
 * Every provider asked at once. A provider that fails is left out while another one has hits to show (the local
 * index, or another upstream): the search answers with those. When none has any, the failure is thrown (an
 * upstream's BadGatewayException: 502, and the metering pipeline bills nothing; several upstreams' failures as one
 * 502 that names them all), never an empty 200.
 */
export async function askProviders(
  providers: readonly SearchProvider[],
  request: ProviderSearchRequest,
): Promise<ProviderHits[]> {
  const settled = await Promise.allSettled(
    providers.map((p) => untilAborted(p.name, p.search(request), request.signal)),
  );
  const answered: ProviderHits[] = [];
  const failures: unknown[] = [];
  settled.forEach((outcome, i) => {
    if (outcome.status === 'fulfilled') answered.push({ provider: providers[i]!.name, hits: outcome.value });
    else failures.push(outcome.reason);
  });
  if (failures.length === 0) return answered;
  if (answered.every((list) => list.hits.length === 0)) throw oneFailure(failures);
  for (const failure of failures) {
    logger.warn(`a provider failed, answering with the others: ${(failure as Error).message ?? String(failure)}`);
  }
  return answered;
}

/**
 * A provider's answer, or the request's abort (its deadline): a provider that ignores the signal (the local index,
 * queued behind the database) counts as failed at the deadline instead of holding the search, as a provider that did
 * not answer in time (502 when none answered).
 */
function untilAborted<T>(provider: string, answer: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return answer;
  return untilSignalAborts(answer, signal).catch((error: unknown) => {
    if (!signal.aborted || error !== signal.reason) throw error;
    const within = error instanceof SearchBudgetSpent ? ` within ${error.budgetMs / 1000} s` : ' in time';
    throw new BadGatewayException(errorBody(`${provider} did not answer${within} (the search's time budget).`));
  });
}

function oneFailure(failures: readonly unknown[]): unknown {
  const gateways = failures.filter((f): f is BadGatewayException => f instanceof BadGatewayException);
  if (failures.length === 1 || gateways.length !== failures.length) return failures[0];
  return new BadGatewayException(errorBody(gateways.map(messageOf).join(' ')));
}

function messageOf(failure: HttpException): string {
  const body = failure.getResponse();
  return typeof body === 'object' && body !== null && 'error' in body ? String(body.error) : failure.message;
}
