/**
 * Redis Cluster hashes only a key's hash tag, when it has one: what lies between its first `{` and the first `}`
 * after it, if not empty. Keys with the same tag share a slot, so one script may touch them all. On a cluster the
 * keys of an organization carry `{<org id>}` (see RedisKeyspace); on one Redis server no key has a tag.
 */
export function hashTagOf(key: string): string | null {
  const open = key.indexOf('{');
  if (open < 0) return null;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : null;
}

/**
 * The key of a node-wide structure (a node's journal, the receipts of its lease steps) for changes to `slotOf`: the
 * same key on one server; on a cluster one per hash tag, in `slotOf`'s slot, so that a script can change both.
 */
export function keyBesides(key: string, slotOf: string): string {
  const tag = hashTagOf(slotOf);
  return tag === null ? key : `${key}:{${tag}}`;
}

/** `{<id>}` on a cluster, so that every key of an organization shares its slot; the id alone on one server. */
export function orgTag(cluster: boolean, orgId: string): string {
  return cluster ? `{${orgId}}` : orgId;
}
