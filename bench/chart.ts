// The benchmark's chart: cumulative distribution of latency for each strategy, with the ideal
// (when quorum weight had arrived) as the floor. A small self-contained SVG, no dependencies, so
// it can be committed next to its JSON and shown by any markdown viewer.

export interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  valuesMs: readonly number[];
}

const WIDTH = 760;
const PLOT_HEIGHT = 330;
const MARGIN = { left: 64, right: 24, bottom: 56 };
/** Characters per subtitle line at 11 px (the settings line is long). */
const SUBTITLE_CHARS = 118;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A tick step of 1, 2 or 5 × 10^k giving about `target` ticks up to `max`. */
export function niceStep(max: number, target = 6): number {
  const raw = max / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => raw <= s);
  return step ?? 10 * magnitude;
}

const fmt = (x: number): string => (Math.round(x * 10) / 10).toString();

/** Greedy word wrap. */
export function wrapText(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Where a latency goes along the plot (0..1) and which ticks to label. */
interface XScale {
  at(ms: number): number;
  ticks: number[];
  log: boolean;
}

function linearScale(maxMs: number): XScale {
  const step = niceStep(Math.max(maxMs, 1));
  const max = Math.ceil(Math.max(maxMs, 1) / step) * step;
  const ticks: number[] = [];
  for (let t = 0; t <= max + step / 2; t += step) ticks.push(t);
  return { at: (ms) => ms / max, ticks, log: false };
}

/** A log axis from the 1-2-5 tick at or below the smallest value to the one at or above the largest. */
function logScale(minMs: number, maxMs: number): XScale {
  const candidates: number[] = [];
  for (let d = 10 ** Math.floor(Math.log10(minMs)); d <= maxMs * 10; d *= 10) candidates.push(d, 2 * d, 5 * d);
  const first = candidates.filter((t) => t <= minMs).pop() ?? candidates[0]!;
  const last = candidates.find((t) => t >= maxMs) ?? candidates[candidates.length - 1]!;
  const ticks = candidates.filter((t) => t >= first && t <= last);
  const from = Math.log10(first);
  const to = Math.log10(last);
  return { at: (ms) => (Math.log10(Math.min(Math.max(ms, first), last)) - from) / (to - from), ticks, log: true };
}

/** Latencies spanning more than a decade (warpgate next to perSignatureVerify) get a log axis. */
export function xScaleFor(values: readonly number[]): XScale {
  const min = Math.max(Math.min(...values), 0.1);
  const max = Math.max(...values, 1);
  return max / min >= 8 ? logScale(min, max) : linearScale(max);
}

/** The SVG's opening, background, title and wrapped subtitle; where the plot starts and its size. */
function chartFrame(title: string, subtitle: string): { out: string[]; top: number; height: number; plotW: number; plotH: number } {
  const subtitleLines = wrapText(subtitle, SUBTITLE_CHARS);
  const top = 40 + subtitleLines.length * 14;
  const height = top + PLOT_HEIGHT + MARGIN.bottom;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`,
    ...subtitleLines.map((line, i) => `<text x="${MARGIN.left}" y="${40 + i * 14}" font-size="11" fill="#555555">${escapeXml(line)}</text>`),
  ];
  return { out, top, height, plotW: WIDTH - MARGIN.left - MARGIN.right, plotH: PLOT_HEIGHT };
}

/** A vertical grid line and its label at each x tick. */
function verticalGrid(out: string[], ticks: readonly number[], x: (v: number) => number, top: number, plotH: number): void {
  for (const t of ticks) {
    out.push(`<line x1="${fmt(x(t))}" y1="${top}" x2="${fmt(x(t))}" y2="${top + plotH}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${fmt(x(t))}" y="${top + plotH + 18}" text-anchor="middle">${fmt(t)}</text>`);
  }
}

export function cdfChart(title: string, subtitle: string, series: readonly Series[]): string {
  const all = series.flatMap((s) => s.valuesMs);
  if (all.length === 0) throw new RangeError('a chart needs at least one value');
  const scale = xScaleFor(all);
  const { out, top, height, plotW, plotH } = chartFrame(title, subtitle);
  const x = (ms: number): number => MARGIN.left + scale.at(ms) * plotW;
  const y = (fraction: number): number => top + (1 - fraction) * plotH;
  verticalGrid(out, scale.ticks, x, top, plotH);
  for (const f of [0, 0.25, 0.5, 0.75, 0.9, 1]) {
    out.push(`<line x1="${MARGIN.left}" y1="${fmt(y(f))}" x2="${MARGIN.left + plotW}" y2="${fmt(y(f))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${fmt(y(f) + 4)}" text-anchor="end">${f}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${height - 14}" text-anchor="middle">latency seen by the client, ms${scale.log ? ' (log scale)' : ''}</text>`);
  out.push(
    `<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">fraction of aggregations</text>`,
  );

  for (const s of series) {
    const sorted = [...s.valuesMs].sort((a, b) => a - b);
    if (sorted.length === 0) continue;
    // A step function: the fraction of runs at or below each latency.
    let d = `M${fmt(x(sorted[0]!))},${fmt(y(0))}`;
    sorted.forEach((v, i) => {
      d += ` H${fmt(x(v))} V${fmt(y((i + 1) / sorted.length))}`;
    });
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
  }

  const legendX = MARGIN.left + plotW - 230;
  const legendTop = top + plotH - 20 - (series.length - 1) * 20 - 14;
  out.push(`<rect x="${legendX - 8}" y="${legendTop}" width="230" height="${series.length * 20 + 8}" fill="#ffffff" stroke="#cccccc"/>`);
  series.forEach((s, i) => {
    const ly = top + plotH - 20 - (series.length - 1 - i) * 20;
    out.push(`<line x1="${legendX}" y1="${ly}" x2="${legendX + 28}" y2="${ly}" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ''}/>`);
    out.push(`<text x="${legendX + 36}" y="${ly + 4}">${escapeXml(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

export interface TimelineSeries {
  label: string;
  color: string;
  /** [x, y] points, x ascending. */
  points: readonly (readonly [number, number])[];
}

/**
 * A line chart of values over time (the service's resident memory over the timed runs), from
 * y = 0 so that levelling off is not exaggerated, with an optional dashed horizontal bound.
 */
export function timelineChart(
  title: string,
  subtitle: string,
  axes: { x: string; y: string },
  series: readonly TimelineSeries[],
  bound?: { label: string; value: number },
): string {
  const points = series.flatMap((s) => s.points);
  if (points.length === 0) throw new RangeError('a chart needs at least one point');
  const xMax = Math.max(...points.map(([x]) => x), 1);
  const yTop = Math.max(...points.map(([, y]) => y), bound?.value ?? 0, 1);
  const xs = linearScale(xMax);
  const ys = linearScale(yTop * 1.05);
  const { out, top, height, plotW, plotH } = chartFrame(title, subtitle);
  const x = (v: number): number => MARGIN.left + xs.at(v) * plotW;
  const y = (v: number): number => top + (1 - ys.at(v)) * plotH;
  verticalGrid(out, xs.ticks, x, top, plotH);
  for (const t of ys.ticks) {
    out.push(`<line x1="${MARGIN.left}" y1="${fmt(y(t))}" x2="${MARGIN.left + plotW}" y2="${fmt(y(t))}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${MARGIN.left - 8}" y="${fmt(y(t) + 4)}" text-anchor="end">${fmt(t)}</text>`);
  }
  out.push(`<rect x="${MARGIN.left}" y="${top}" width="${plotW}" height="${plotH}" fill="none" stroke="#333333"/>`);
  out.push(`<text x="${MARGIN.left + plotW / 2}" y="${height - 14}" text-anchor="middle">${escapeXml(axes.x)}</text>`);
  out.push(`<text x="16" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 16 ${top + plotH / 2})">${escapeXml(axes.y)}</text>`);
  if (bound) {
    out.push(`<line x1="${MARGIN.left}" y1="${fmt(y(bound.value))}" x2="${MARGIN.left + plotW}" y2="${fmt(y(bound.value))}" stroke="#888888" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${MARGIN.left + 6}" y="${fmt(y(bound.value) - 5)}" fill="#555555">${escapeXml(bound.label)}</text>`);
  }
  for (const s of series) {
    if (s.points.length === 0) continue;
    const d = s.points.map(([px, py], i) => `${i === 0 ? 'M' : 'L'}${fmt(x(px))},${fmt(y(py))}`).join(' ');
    out.push(`<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
  }
  const legendX = MARGIN.left + plotW - 230;
  const legendTop = top + plotH - 20 - (series.length - 1) * 20 - 14;
  out.push(`<rect x="${legendX - 8}" y="${legendTop}" width="230" height="${series.length * 20 + 8}" fill="#ffffff" stroke="#cccccc"/>`);
  series.forEach((s, i) => {
    const ly = top + plotH - 20 - (series.length - 1 - i) * 20;
    out.push(`<line x1="${legendX}" y1="${ly}" x2="${legendX + 28}" y2="${ly}" stroke="${s.color}" stroke-width="2"/>`);
    out.push(`<text x="${legendX + 36}" y="${ly + 4}">${escapeXml(s.label)}</text>`);
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
