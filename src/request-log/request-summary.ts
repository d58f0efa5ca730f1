/** The longest summary kept: enough to recognise a query or a URL, never a whole document. */
export const SUMMARY_MAX = 200;

const str = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value : null);

function clip(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > SUMMARY_MAX ? `${flat.slice(0, SUMMARY_MAX - 1)}…` : flat;
}

/**
 * A URL as the log keeps it: scheme, host and path. The query string, fragment and userinfo are dropped, since
 * tokens and passwords travel there. Anything that is not a URL is kept as text, clipped.
 */
export function safeUrl(value: string): string {
  try {
    const url = new URL(value);
    return clip(`${url.protocol}//${url.host}${url.pathname}`);
  } catch {
    return clip(value);
  }
}

function urls(value: unknown): string | null {
  const list = Array.isArray(value)
    ? value.filter((v): v is string => typeof v === 'string')
    : str(value)
      ? [value as string]
      : [];
  if (list.length === 0) return null;
  const first = safeUrl(list[0]!);
  return list.length === 1 ? first : clip(`${first} (+${list.length - 1} more)`);
}

/** The query or URLs of a call's arguments (REST body or MCP tool arguments). */
function summaryOfArguments(args: Record<string, unknown>): string | null {
  const query = str(args.query) ?? str(args.input) ?? str(args.q);
  if (query) return clip(query);
  return urls(args.urls) ?? urls(args.url);
}

/**
 * What a data-plane call asked for, in a line: the query, or the URL(s) without their query strings. An MCP
 * request names its tool calls. `api_key` is never read (the pipeline removes it from the body anyway).
 */
export function requestSummary(body: unknown): string | null {
  if (!body || typeof body !== 'object') return null;
  const messages = Array.isArray(body) ? body : [body];
  const mcp = messages.filter(
    (m): m is { method: string; params?: { name?: unknown; arguments?: unknown } } =>
      !!m && typeof m === 'object' && typeof (m as { method?: unknown }).method === 'string',
  );
  if (mcp.length > 0) {
    const parts = mcp.map((m) => {
      if (m.method !== 'tools/call') return m.method;
      const name = str(m.params?.name) ?? 'tool';
      const args = m.params?.arguments;
      const summary = args && typeof args === 'object' ? summaryOfArguments(args as Record<string, unknown>) : null;
      return summary ? `${name}: ${summary}` : name;
    });
    return clip(parts.join('; '));
  }
  return summaryOfArguments(body as Record<string, unknown>);
}
