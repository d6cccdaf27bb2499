// The status page's two charts of the last 15 minutes (status.json's aggregations.timeline):
// latency of the successful aggregations (p50 and p99 lines) and outcomes per interval (stacked
// bars). Inline SVG built by the page's own script (page-script.ts includes this text), styled by
// its own stylesheet through classes: nothing is loaded, and the Content-Security-Policy stays as
// strict as it is. Each bar and point carries its figures as data attributes and a tooltip.
// Plain ES2020 in a template literal: no template literals inside.
export const STATUS_PAGE_CHART = `
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var CHART = { width: 640, height: 160, left: 52, right: 10, top: 10, bottom: 24 };

  function svg(tag, attrs, children) {
    var e = document.createElementNS(SVG_NS, tag);
    for (var k in attrs) e.setAttribute(k, String(attrs[k]));
    (children || []).forEach(function (c) { if (c) e.appendChild(c); });
    return e;
  }
  function svgText(x, y, text, cls) {
    var t = svg('text', { x: x, y: y, class: cls || '' });
    t.textContent = text;
    return t;
  }
  function tooltip(text) {
    var t = svg('title', {});
    t.textContent = text;
    return t;
  }
  // The smallest of 1, 2 or 5 times a power of ten at or above v: a round top for the y axis.
  function niceMax(v) {
    if (!(v > 0)) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var m = v / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  }
  function clock(iso) { return new Date(iso).toLocaleTimeString(); }

  // Axes and grid: three horizontal lines (0, half, top) labelled with format(value), and the time
  // axis labelled in minutes before now.
  function frame(kind, yMax, format, tl, parts) {
    var c = CHART, n = tl.intervals.length, plotW = c.width - c.left - c.right, plotH = c.height - c.top - c.bottom;
    var nodes = [];
    [0, 0.5, 1].forEach(function (f) {
      var y = c.top + plotH * (1 - f);
      nodes.push(svg('line', { x1: c.left, x2: c.width - c.right, y1: y, y2: y, class: 'grid' }));
      nodes.push(svgText(c.left - 6, y + 4, format(yMax * f), 'axis y'));
    });
    var minutes = n * tl.intervalSeconds / 60;
    [minutes, minutes * 2 / 3, minutes / 3, 0].forEach(function (m) {
      var x = c.left + plotW * (1 - m / minutes);
      nodes.push(svgText(x, c.height - 6, m === 0 ? 'now' : '-' + Math.round(m) + ' min', 'axis x'));
    });
    return svg('svg', { viewBox: '0 0 ' + c.width + ' ' + c.height, 'data-chart': kind, role: 'img' }, nodes.concat(parts));
  }

  function xOf(i, n) { return CHART.left + (i + 0.5) * (CHART.width - CHART.left - CHART.right) / n; }
  function yOf(v, yMax) { var plotH = CHART.height - CHART.top - CHART.bottom; return CHART.top + plotH * (1 - Math.min(v, yMax) / yMax); }

  function latencyChart(tl) {
    var n = tl.intervals.length;
    var yMax = niceMax(Math.max.apply(null, tl.intervals.map(function (p) { return p.p99Ms || 0; })));
    var parts = [];
    ['p99', 'p50'].forEach(function (series) {
      var key = series + 'Ms', d = '', pen = 'M';
      tl.intervals.forEach(function (p, i) {
        // A gap where an interval had no success: the line breaks rather than inventing a value.
        if (p[key] == null) { pen = 'M'; return; }
        d += pen + xOf(i, n).toFixed(1) + ' ' + yOf(p[key], yMax).toFixed(1) + ' ';
        pen = 'L';
        parts.push(svg('circle', { cx: xOf(i, n).toFixed(1), cy: yOf(p[key], yMax).toFixed(1), r: 2.5, class: 'point ' + series, 'data-series': series, 'data-ms': p[key] },
          [tooltip(clock(p.start) + ': ' + series + ' ' + ms(p[key]))]));
      });
      if (d) parts.unshift(svg('path', { d: d, class: 'line ' + series }));
    });
    return frame('latency', yMax, ms, tl, parts);
  }

  function outcomesChart(tl) {
    var n = tl.intervals.length;
    var yMax = niceMax(Math.max.apply(null, tl.intervals.map(function (p) { return p.success + p.quorum_not_reached + p.error; })));
    var barW = Math.max(1, (CHART.width - CHART.left - CHART.right) / n - 2);
    var parts = tl.intervals.map(function (p, i) {
      var y = yOf(0, yMax), bars = [];
      [['success', 'ok'], ['quorum_not_reached', 'warn'], ['error', 'bad']].forEach(function (o) {
        if (!p[o[0]]) return;
        var h = yOf(0, yMax) - yOf(p[o[0]], yMax);
        y -= h;
        bars.push(svg('rect', { x: (xOf(i, n) - barW / 2).toFixed(1), y: y.toFixed(1), width: barW.toFixed(1), height: h.toFixed(1), class: 'bar ' + o[1] }));
      });
      bars.push(tooltip(clock(p.start) + ': ' + p.success + ' success, ' + p.quorum_not_reached + ' quorum not reached, ' + p.error + ' error'));
      return svg('g', { 'data-interval': p.start, 'data-success': p.success, 'data-quorum-not-reached': p.quorum_not_reached, 'data-error': p.error }, bars);
    });
    return frame('outcomes', yMax, function (v) { return v % 1 ? v.toFixed(1) : String(v); }, tl, parts);
  }

  function legend(items) {
    return el('div', { class: 'legend' }, items.map(function (it) { return el('span', null, [el('span', { class: 'key ' + it[1] }), it[0]]); }));
  }

  function timelineCharts(tl) {
    var seconds = tl.intervalSeconds + ' s';
    return el('div', { class: 'charts' }, [
      el('figure', { class: 'chart' }, [
        el('figcaption', { text: 'Latency of successful aggregations, per ' + seconds }),
        latencyChart(tl),
        legend([['p50', 'p50'], ['p99', 'p99']]),
      ]),
      el('figure', { class: 'chart' }, [
        el('figcaption', { text: 'Aggregations per ' + seconds + ', by outcome' }),
        outcomesChart(tl),
        legend([['success', 'ok'], ['quorum not reached', 'warn'], ['error', 'bad']]),
      ]),
    ]);
  }
`;
