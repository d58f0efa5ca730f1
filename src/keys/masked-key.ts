/**
 * An API key as the account routes (POST /logs, POST /org-usage) show it: its display prefix (environment and the
 * first characters of the secret, as the key listings show) followed by `...`; never the key, never its hash. Null
 * when the key is not known to the read models.
 */
export function maskedKey(prefix: string | null): string | null {
  return prefix === null ? null : `${prefix}...`;
}
