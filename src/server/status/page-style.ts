// The status page's stylesheet, inlined into the page (no external asset). Its hash goes into the
// page's Content-Security-Policy (page.ts), so nothing else can style it.
export const STATUS_PAGE_STYLE = `
:root { color-scheme: light; --fg: #1d2330; --muted: #5d6677; --line: #dde2ea; --bg: #f5f7fa; --card: #fff;
  --ok: #1f8a4c; --warn: #b7791f; --bad: #c53030; --bar: #3b82f6; --bar-bg: #e6ebf2; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; flex-wrap: wrap; gap: 12px; align-items: baseline; padding: 14px 24px; background: var(--card); border-bottom: 1px solid var(--line); }
header h1 { margin: 0; font-size: 20px; }
header .meta { color: var(--muted); }
main { padding: 16px 24px 40px; max-width: 1280px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; background: var(--muted); }
.badge.ok { background: var(--ok); } .badge.warn { background: var(--warn); } .badge.bad { background: var(--bad); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(200px, 1fr)); gap: 12px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; }
.card .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.card .value { font-size: 26px; font-weight: 600; }
.card .detail { color: var(--muted); font-size: 12px; }
.subnet { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin-bottom: 14px; }
.subnet h3 { margin: 0 0 8px; font-size: 14px; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
.stake { position: relative; height: 22px; background: var(--bar-bg); border-radius: 4px; overflow: hidden; margin: 6px 0; }
.stake .fill { position: absolute; inset: 0 auto 0 0; background: var(--bar); }
.stake .fill.below { background: var(--warn); }
.stake .quorum { position: absolute; top: 0; bottom: 0; width: 2px; background: var(--fg); }
.stake .text { position: absolute; inset: 0; display: flex; gap: .35em; align-items: center; padding-left: 8px; font-size: 12px; font-weight: 600; }
table { width: 100%; border-collapse: collapse; background: var(--card); font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { color: var(--muted); font-weight: 600; font-size: 12px; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.dot { display: inline-block; width: 9px; height: 9px; border-radius: 50%; background: var(--bad); margin-right: 6px; }
.dot.on { background: var(--ok); }
.note { color: var(--muted); font-size: 12px; margin: 6px 0; }
.problem { background: #fff5f5; border: 1px solid #f5c2c2; color: var(--bad); border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
.hidden { display: none; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr)); gap: 12px; }
.chart { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.chart figcaption { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.chart svg { display: block; width: 100%; height: auto; }
.chart .grid { stroke: var(--line); stroke-width: 1; }
.chart .axis { fill: var(--muted); font-size: 10px; }
.chart .axis.y { text-anchor: end; }
.chart .axis.x { text-anchor: middle; }
.chart .line { fill: none; stroke-width: 2; }
.chart .line.p50, .chart .point.p50 { stroke: var(--bar); } .chart .point.p50 { fill: var(--bar); }
.chart .line.p99, .chart .point.p99 { stroke: var(--warn); } .chart .point.p99 { fill: var(--warn); }
.chart .bar.ok { fill: var(--ok); } .chart .bar.warn { fill: var(--warn); } .chart .bar.bad { fill: var(--bad); }
.legend { display: flex; gap: 14px; color: var(--muted); font-size: 12px; }
.legend .key { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.legend .key.p50 { background: var(--bar); } .legend .key.p99 { background: var(--warn); }
.legend .key.ok { background: var(--ok); } .legend .key.warn { background: var(--warn); } .legend .key.bad { background: var(--bad); }
`;
