// What EmbeddedPostgres and the thread running PGlite (pglite-thread.ts) say to each other, in a file of its own so
// that neither imports the other for it.

/** What EmbeddedPostgres hands the thread that runs PGlite. */
export interface PgliteThreadData {
  readonly pgDir: string;
  readonly port: number;
  readonly maxConnections: number;
}

export type PgliteThreadMessage =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'stopped' };
