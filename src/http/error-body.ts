/** Every error body: a top-level `error`, repeated as `detail.error` for the official Tavily clients. */
export interface ErrorBody {
  error: string;
  detail: { error: string };
  [context: string]: unknown;
}

export function errorBody(message: string, context: Record<string, unknown> = {}): ErrorBody {
  return { error: message, ...context, detail: { error: message } };
}
