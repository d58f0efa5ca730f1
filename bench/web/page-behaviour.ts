import { logNormal, prng, seedOf } from './seeded-random.js';

/**
 * How one page answers, drawn once per URL path from a seed (so every run, and the cold and warm passes of one run,
 * see the same web): after its latency, `ok` sends the page, `503` and `404` an error page, `trickle` the page spread
 * over `trickleMs`, and `hang` nothing at all (the connection stays open until the client gives up).
 */
export type PageOutcome = 'ok' | 'hang' | '503' | '404' | 'trickle';

export interface PageBehaviour {
  readonly outcome: PageOutcome;
  /** Time to the response's headers (ok, 503, 404, trickle), in ms. */
  readonly latencyMs: number;
  /** For `trickle`: the body arrives over this long after the headers. */
  readonly trickleMs: number;
}

export interface WebModel {
  readonly seed: number;
  readonly latencyMedianMs: number;
  readonly latencyP90Ms: number;
  readonly latencyMaxMs: number;
  /** Shares of pages, the rest answer `ok`. */
  readonly hang: number;
  readonly unavailable: number;
  readonly notFound: number;
  readonly trickle: number;
  readonly trickleMs: number;
}

/** Issue 25's web: median 120 ms, p90 500 ms; 4 % hang, 3 % answer 503, 2 % 404, 3 % trickle their body over 3 s. */
export const ISSUE_25_WEB: WebModel = {
  seed: 25,
  latencyMedianMs: 120,
  latencyP90Ms: 500,
  latencyMaxMs: 10_000,
  hang: 0.04,
  unavailable: 0.03,
  notFound: 0.02,
  trickle: 0.03,
  trickleMs: 3000,
};

export function pageBehaviour(path: string, model: WebModel = ISSUE_25_WEB): PageBehaviour {
  const random = prng(seedOf(model.seed, path));
  const draw = random();
  const latencyMs = Math.round(logNormal(random, model.latencyMedianMs, model.latencyP90Ms, 5, model.latencyMaxMs));
  let threshold = model.hang;
  let outcome: PageOutcome = 'ok';
  if (draw < threshold) outcome = 'hang';
  else if (draw < (threshold += model.unavailable)) outcome = '503';
  else if (draw < (threshold += model.notFound)) outcome = '404';
  else if (draw < (threshold += model.trickle)) outcome = 'trickle';
  return { outcome, latencyMs, trickleMs: model.trickleMs };
}
