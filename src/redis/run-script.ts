import { createHash } from 'node:crypto';
import type { RedisClient } from './redis.module.js';

const digests = new Map<string, string>();

function digestOf(script: string): string {
  let digest = digests.get(script);
  if (!digest) {
    digest = createHash('sha1').update(script).digest('hex');
    digests.set(script, digest);
  }
  return digest;
}

/**
 * Runs a Lua script by its SHA-1 (EVALSHA), so that its text crosses the wire only when Redis does not have it
 * cached (first use, or after a restart or SCRIPT FLUSH: NOSCRIPT, then EVAL, which caches it). A NOSCRIPT answer
 * means the script did not run, so running it then is not a second run.
 */
export async function runScript(
  redis: RedisClient,
  script: string,
  options: { keys: string[]; arguments: string[] },
): Promise<unknown> {
  try {
    return await redis.evalSha(digestOf(script), options);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await redis.eval(script, options);
  }
}
