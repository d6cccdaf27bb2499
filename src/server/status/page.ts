// The status page: one self-contained HTML document (its style and script inlined, no external
// asset, no CDN) that draws GET /status.json and asks again every refreshMs. Its
// Content-Security-Policy allows exactly its own style and script (by hash) and requests to this
// origin, so the page can load nothing from anywhere else.
import { createHash } from 'node:crypto';
import { STATUS_PAGE_SCRIPT } from './page-script.js';
import { STATUS_PAGE_STYLE } from './page-style.js';

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

export const STATUS_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${sha256(STATUS_PAGE_STYLE)}`,
  `script-src ${sha256(STATUS_PAGE_SCRIPT)}`,
  "connect-src 'self'",
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The page; `refreshMs` is how often it asks status.json until the first answer says. */
export function statusPage(refreshMs: number): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>warpgate status</title>
<style>${STATUS_PAGE_STYLE}</style>
</head>
<body data-refresh-ms="${Math.trunc(refreshMs)}" data-state="loading">
<header><h1>warpgate</h1><span class="meta" id="version"></span><span class="badge" id="ready">…</span><span class="meta" id="updated">loading</span></header>
<main>
<div class="problem hidden" id="problem" role="alert"></div>
<div id="app"><p class="note">Loading status.json…</p></div>
</main>
<script>${STATUS_PAGE_SCRIPT}</script>
</body>
</html>
`;
}
