import fs from 'node:fs';
const { agg, folds } = JSON.parse(fs.readFileSync(process.argv[2]));
const q = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
const rows = [];
for (const [E, ms, inMs] of agg) {
  const start = E - ms, W = start + inMs;
  const fs_ = folds.filter(([a, b]) => a >= start - 0.01 && b <= E + 0.01);
  if (!fs_.length) { rows.push({ own: ms - inMs, none: true }); continue; }
  const [A, B, n, nb] = fs_[fs_.length - 1];
  rows.push({ own: ms - inMs, wait: A - W, task: B - A, post: E - B, n, nb, count: fs_.length });
}
const ok = rows.filter((r) => !r.none);
console.log('aggs', rows.length, 'with completing fold', ok.length, 'multi', ok.filter(r => r.count > 1).length);
for (const k of ['own', 'wait', 'task', 'post', 'n']) console.log(k.padEnd(5), [.1, .5, .9, .99].map(p => q(ok.map(r => r[k]), p).toFixed(2)).join(' / '));
const slow = [...ok].sort((a, b) => b.own - a.own).slice(0, 12);
console.log('slowest own = wait + task + post (batch):', slow.map(r => `${r.own.toFixed(1)}=${r.wait.toFixed(1)}+${r.task.toFixed(1)}+${r.post.toFixed(1)}(${r.n})`).join(' '));
