/** The dashboard's HTML shell and its security headers. The page carries no inline script or style. */

/** Strict by default: only this origin's scripts, styles, images and API; no framing, no plugins, no inline code. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "manifest-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': DASHBOARD_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Sign-in links carry their token in the query string: never send it on as a Referer.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function dashboardShell(basePath: string, version: string): string {
  const base = escapeHtml(basePath);
  const v = encodeURIComponent(version);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="dashboard-base" content="${base}">
<meta name="color-scheme" content="light">
<title>Dashboard · Search Ledger</title>
<link rel="icon" href="${base}/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="${base}/assets/styles.css?v=${v}">
<script type="module" src="${base}/assets/app.js?v=${v}"></script>
</head>
<body>
<div id="app"><main id="main" tabindex="-1"><h1>Dashboard</h1><p>Loading…</p>
<noscript><p>The dashboard needs JavaScript. The API works without it: see the README.</p></noscript></main></div>
<div id="announcer" class="visually-hidden" aria-live="polite" aria-atomic="true"></div>
</body>
</html>
`;
}

export function assetsMissingPage(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dashboard not built</title></head>
<body><main><h1>The dashboard is not built</h1><p>Run <code>npm run build</code> (it compiles the dashboard's
assets into <code>dist/dashboard</code>) and restart the server.</p></main></body></html>
`;
}
