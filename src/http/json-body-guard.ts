import type { FastifyInstance } from 'fastify';
import { errorBody } from './error-body.js';

/** No request of the API nests deeper than a few levels; JSON-RPC batches of tool arguments stay well under this. */
export const MAX_JSON_DEPTH = 64;

/**
 * Why a parsed JSON body cannot be served, or null. Two things JSON.parse accepts but the service cannot keep:
 * - nesting deeper than `maxDepth`: the recursive code behind the routes (class-transformer, validation, request
 *   fingerprints) would overflow the stack on a body of a few thousand brackets;
 * - strings (values or keys) with U+0000 or an unpaired surrogate (`"\ud800"`): PostgreSQL refuses both in text and
 *   jsonb, so a name or a query carrying one would fail when stored or searched.
 * Iterative, so that measuring a deep body cannot overflow the stack either.
 */
export function jsonBodyProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current === 'string') {
      const problem = stringProblem(current);
      if (problem) return problem;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth > maxDepth) return `the JSON body is nested too deeply (more than ${maxDepth} levels)`;
    for (const [key, child] of Object.entries(current)) {
      if (!Array.isArray(current)) {
        const problem = stringProblem(key);
        if (problem) return problem;
      }
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
      else if (typeof child === 'string') stack.push([child, depth]);
    }
  }
  return null;
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'strings in the JSON body must not contain the NUL character (\\u0000)';
  if (UNPAIRED_SURROGATE.test(text))
    return 'strings in the JSON body must be valid Unicode (an unpaired surrogate was found)';
  return null;
}

/** Refuses (400) a request whose JSON body `jsonBodyProblem` rejects, before any route (or metering) sees it. */
export function installJsonBodyGuard(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', async (request, reply) => {
    const problem = jsonBodyProblem(request.body);
    if (!problem) return;
    // Answered here: Fastify stops at a hook that returns the reply it sent.
    return reply.status(400).send(errorBody(problem));
  });
}
