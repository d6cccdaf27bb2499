import fs from 'node:fs';
for (const f of process.argv.slice(2)) {
  const { gc, agg } = JSON.parse(fs.readFileSync(f));
  const overlap = (a, b) => gc.reduce((s, [st, d]) => s + Math.max(0, Math.min(b, st + d) - Math.max(a, st)), 0);
  const rows = agg.map(([end, ms, inMs]) => {
    const own = ms - inMs, start = end - ms;
    return { ms, own, inMs, gcOwn: overlap(end - own, end), gcIn: overlap(start, end - own) };
  });
  const q = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  console.log(f, 'n', rows.length, 'own p50/p90/p99', [.5, .9, .99].map(p => q(rows.map(r => r.own), p).toFixed(1)).join('/'),
    'gc per agg in-window', (sum(rows.map(r => r.gcIn)) / rows.length).toFixed(2), 'own-window', (sum(rows.map(r => r.gcOwn)) / rows.length).toFixed(2));
  const slow = [...rows].sort((a, b) => b.own - a.own).slice(0, 10);
  console.log(' slowest own:', slow.map(r => `${r.own.toFixed(1)}(gc ${r.gcOwn.toFixed(1)})`).join(' '));
  const slowT = [...rows].sort((a, b) => b.ms - a.ms).slice(0, 8);
  console.log(' slowest total:', slowT.map(r => `${r.ms.toFixed(1)}=in ${r.inMs.toFixed(1)}(gc ${r.gcIn.toFixed(1)})+own ${r.own.toFixed(1)}(gc ${r.gcOwn.toFixed(1)})`).join(' '));
  const ownMinusGc = rows.map(r => r.own - r.gcOwn);
  console.log(' own minus gc p50/p90/p99', [.5, .9, .99].map(p => q(ownMinusGc, p).toFixed(1)).join('/'));
}
