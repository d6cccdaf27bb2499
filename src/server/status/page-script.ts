// The status page's script, inlined into the page (no external asset; its hash goes into the
// page's Content-Security-Policy). It asks status.json (beside the page) every refreshMs and
// redraws from the answer, building elements with textContent only: nothing from the answer is
// ever parsed as HTML. Plain ES2020 for any current browser, no template literals (this file is
// one itself). The charts are page-chart.ts's.
import { STATUS_PAGE_CHART } from './page-chart.js';

export const STATUS_PAGE_SCRIPT = `
(function () {
  'use strict';
  var root = document.getElementById('app');
  var refreshMs = Number(document.body.getAttribute('data-refresh-ms')) || 2000;

  function el(tag, props, children) {
    var e = document.createElement(tag);
    if (props) for (var k in props) {
      if (k === 'text') e.textContent = props[k];
      else if (k === 'class') e.className = props[k];
      else e.setAttribute(k, props[k]);
    }
    (children || []).forEach(function (c) { if (c != null) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return e;
  }
  // Weights are uint64 as decimal strings: shown with three significant digits and an SI prefix.
  var PREFIXES = ['', 'k', 'M', 'G', 'T', 'P', 'E'];
  function weight(w) {
    if (w == null) return '—';
    var n = Number(w), i = 0;
    while (n >= 1000 && i < PREFIXES.length - 1) { n /= 1000; i++; }
    return (i === 0 ? String(n) : n.toPrecision(3)) + PREFIXES[i];
  }
  function ms(v) { return v == null ? '—' : Math.round(v) + ' ms'; }
  function pct(v) { return v == null ? '—' : v.toFixed(2) + '%'; }
  function ratio(part, whole) { return whole > 0 ? (100 * part / whole) : null; }
  function ago(s) { return s < 60 ? s + ' s ago' : s < 3600 ? Math.round(s / 60) + ' min ago' : Math.round(s / 3600) + ' h ago'; }
  function short(id) { return id.length > 20 ? id.slice(0, 10) + '…' + id.slice(-6) : id; }
  function badge(text, kind) { return el('span', { class: 'badge ' + kind, text: text }); }

  function card(label, value, detail, metric) {
    return el('div', { class: 'card' }, [
      el('div', { class: 'label', text: label }),
      el('div', { class: 'value', 'data-metric': metric, text: String(value) }),
      detail ? el('div', { class: 'detail', text: detail }) : null,
    ]);
  }

${STATUS_PAGE_CHART}
  function summary(r) {
    var a = r.aggregations, c = r.signatureCache, w = r.workers;
    var transports = Object.keys(r.peers.byTransport).map(function (t) { return t + ' ' + r.peers.byTransport[t]; }).join(', ');
    var hit = ratio(c.hits, c.hits + c.misses);
    return el('div', { class: 'cards' }, [
      card('Validators connected', r.peers.connected, transports || 'no transport', 'peers-connected'),
      card('Aggregations', a.total, 'success ' + a.byOutcome.success + ', quorum not reached ' + a.byOutcome.quorum_not_reached + ', error ' + a.byOutcome.error, 'aggregations-total'),
      card('In flight', a.inFlight, 'aggregations under way', 'aggregations-in-flight'),
      card('Signature cache', c.signatures, c.messages + ' of ' + c.maxMessages + ' messages, ' + c.signatures + ' of ' + c.maxSignatures + ' signatures; hit ratio ' + pct(hit), 'cache-signatures'),
      card('BLS worker queue', w.queued, 'tasks waiting; threads: ' + w.threads + ', at most ' + w.maxQueue + ' waiting', 'worker-queue'),
      sharedState(r.sharedState),
    ]);
  }

  // Redis shared by replicas: its health first, then what it saved (shown only with redis.url).
  function sharedState(s) {
    if (!s || s.state === 'disabled') return null;
    var value = s.state === 'connected' ? 'connected' : s.state === 'connecting' ? 'connecting' : 'shared state unavailable';
    var c = s.coalesced;
    var detail = (s.reason ? s.reason + '. ' : '') + 'shared cache hits ' + s.sharedCacheHits + ', misses ' + s.sharedCacheMisses +
      ', dropped ' + s.sharedCacheInvalid + '; coalesced requests ' + c.waiter + ' (collected ' + c.holder + ', taken over ' + c.takeover + ')' +
      '; local fallbacks ' + s.fallbacks;
    return card('Shared state (Redis)', value, detail, 'shared-state');
  }

  function stakeBar(s) {
    var below = s.connectedPercent < s.quorumPercentage;
    var fill = el('div', { class: 'fill' + (below ? ' below' : '') });
    fill.style.width = Math.min(100, s.connectedPercent) + '%';
    var quorum = el('div', { class: 'quorum', title: 'quorum ' + s.quorumPercentage + '%' });
    quorum.style.left = s.quorumPercentage + '%';
    var text = el('div', { class: 'text' }, [
      el('span', { 'data-metric': 'connected-percent', text: pct(s.connectedPercent) }),
      ' connected of ' + weight(s.totalWeight) + ' weight · quorum ' + s.quorumPercentage + '%',
    ]);
    return el('div', { class: 'stake', role: 'img', 'aria-label': pct(s.connectedPercent) + ' of stake connected, quorum ' + s.quorumPercentage + '%' }, [fill, quorum, text]);
  }

  function validators(s) {
    var head = el('tr', null, ['Node ID', 'Weight', 'Share', 'Transport', 'Connected', 'Last answer', 'Penalties'].map(function (h, i) {
      return el('th', { class: i === 1 || i === 2 || i === 6 ? 'num' : '', text: h });
    }));
    var rows = s.validators.map(function (v) {
      var last = v.lastAnswer ? v.lastAnswer.result + ' in ' + ms(v.lastAnswer.ms) + ', ' + ago(v.lastAnswer.secondsAgo) : '—';
      var node = v.nodeIds[0] ? short(v.nodeIds[0]) + (v.nodeIds.length > 1 ? ' +' + (v.nodeIds.length - 1) : '') : short(v.publicKey);
      return el('tr', { 'data-validator': v.publicKey }, [
        el('td', { class: 'id', title: v.nodeIds.join(', ') + ' · BLS ' + v.publicKey, text: node }),
        el('td', { class: 'num', text: weight(v.weight) }),
        el('td', { class: 'num', text: pct(v.weightPercent) }),
        el('td', { text: v.transport || '—' }),
        el('td', null, [el('span', { class: 'dot' + (v.connected ? ' on' : '') }), v.connected ? 'yes' : 'no']),
        el('td', { text: last }),
        el('td', { class: 'num', text: String(v.penalties) }),
      ]);
    });
    return el('table', null, [el('thead', null, [head]), el('tbody', null, rows)]);
  }

  function subnet(s) {
    var title = el('h3', null, [s.subnetId + ' ', s.tracked ? badge('readiness', 'ok') : badge('signed for', '')]);
    var parts = [title];
    if (s.error) parts.push(el('div', { class: 'problem', text: s.error }));
    if (s.totalWeight != null) {
      parts.push(stakeBar(s));
      parts.push(el('div', { class: 'note', text: s.connectedCount + ' of ' + s.validatorCount + ' validators connected' +
        (s.validators.length < s.validatorCount ? '; the ' + s.validators.length + ' heaviest listed' : '') }));
      parts.push(validators(s));
    }
    return el('section', { class: 'subnet', 'data-subnet': s.subnetId }, parts);
  }

  function aggregations(list) {
    if (list.length === 0) return el('p', { class: 'note', text: 'No aggregation since the service started.' });
    var head = el('tr', null, ['Ended', 'Subnet', 'Outcome', 'Latency', 'Ideal', 'Overhead', 'Signers', 'Signed weight'].map(function (h, i) {
      return el('th', { class: i >= 3 ? 'num' : '', text: h });
    }));
    var rows = list.map(function (a) {
      var kind = a.outcome === 'success' ? 'ok' : a.outcome === 'quorum_not_reached' ? 'warn' : 'bad';
      var outcome = a.outcome.replace(/_/g, ' ') + (a.error ? ' (' + a.error + ')' : '');
      return el('tr', { 'data-outcome': a.outcome }, [
        el('td', { text: new Date(a.at).toLocaleTimeString() }),
        el('td', { class: 'id', title: a.subnetId || '', text: a.subnetId ? short(a.subnetId) : '—' }),
        el('td', null, [badge(outcome, kind)]),
        el('td', { class: 'num', text: ms(a.ms) }),
        el('td', { class: 'num', text: ms(a.idealMs) }),
        el('td', { class: 'num', text: a.idealMs == null ? '—' : ms(a.ms - a.idealMs) }),
        el('td', { class: 'num', text: a.signers == null ? '—' : String(a.signers) }),
        el('td', { class: 'num', text: a.signedWeight == null ? '—' : pct(ratio(Number(a.signedWeight), Number(a.totalWeight))) }),
      ]);
    });
    return el('table', null, [el('thead', null, [head]), el('tbody', null, rows)]);
  }

  // The relayer (only with relayer.routes): its counts, then one row per route.
  function relayer(x) {
    var low = x.lowBalanceKeys.map(function (k) { return short(k.address) + ' on ' + short(k.chain); }).join(', ');
    var cards = el('div', { class: 'cards' }, [
      card('Delivered', x.delivered, 'by others ' + x.deliveredByOthers + ', skipped ' + x.skipped + ', retries ' + x.retries, 'relayer-delivered'),
      card('Parked', x.routes.reduce(function (a, r) { return a + r.parked; }, 0), 'retried from the store on a slow schedule', 'relayer-parked'),
      card('Takeovers', x.takeovers, 'routes taken from a relayer that stopped renewing; deliveries found in flight ' + x.inFlightAtTakeover, 'relayer-takeovers'),
      card('Keys low on funds', x.lowBalanceKeys.length, low || 'none below relayer.lowBalanceGwei', 'relayer-low-keys'),
    ]);
    var head = el('tr', null, ['Route', 'State', 'Checkpoint', 'Lag', 'In flight', 'Parked'].map(function (h, i) {
      return el('th', { class: i >= 2 ? 'num' : '', text: h });
    }));
    var rows = x.routes.map(function (r) {
      var state = r.problem ? badge(r.problem, 'bad') : r.held ? badge('running', 'ok') : badge('standby', '');
      var lag = r.checkpoint == null || r.head == null ? '—' : String(Math.max(0, r.head - r.checkpoint));
      return el('tr', { 'data-route': r.id }, [
        el('td', { class: 'id', title: r.id, text: r.id.split('->').map(short).join(' → ') }),
        el('td', null, [state]),
        el('td', { class: 'num', text: r.checkpoint == null ? '—' : String(r.checkpoint) }),
        el('td', { class: 'num', text: lag }),
        el('td', { class: 'num', text: String(r.inFlight) }),
        el('td', { class: 'num', text: String(r.parked) }),
      ]);
    });
    return el('section', { id: 'relayer' }, [cards, el('table', null, [el('thead', null, [head]), el('tbody', null, rows)])]);
  }

  function render(r) {
    document.getElementById('version').textContent = 'v' + r.version;
    var ready = document.getElementById('ready');
    ready.textContent = r.ready ? 'ready' : 'not ready';
    ready.className = 'badge ' + (r.ready ? 'ok' : 'bad');
    document.getElementById('updated').textContent = 'up ' + ago(r.uptimeSeconds).replace(' ago', '') + ' · updated ' + new Date().toLocaleTimeString();
    var parts = [];
    if (!r.ready) parts.push(el('div', { class: 'problem' }, r.reasons.map(function (x) { return el('div', { text: x }); })));
    if (r.peers.silent.length > 0) parts.push(el('div', { class: 'problem', id: 'silent-validators' }, r.peers.silent.map(function (v) { return el('div', { text: v.nodeId + ' drops requests without an answer: ' + v.reason + '. Remedy: ' + v.remedy + '.' }); })));
    parts.push(summary(r));
    if (r.relayer) {
      parts.push(el('h2', { text: 'Relayer' }));
      parts.push(relayer(r.relayer));
    }
    parts.push(el('h2', { text: 'Last 15 minutes' }));
    parts.push(timelineCharts(r.aggregations.timeline));
    parts.push(el('h2', { text: 'Signing subnets: connected stake against quorum' }));
    if (r.subnets.length === 0) parts.push(el('p', { class: 'note', text: 'No subnet yet: list one in readiness.subnets, or aggregate.' }));
    r.subnets.forEach(function (s) { parts.push(subnet(s)); });
    parts.push(el('h2', { text: 'Last aggregations' }));
    parts.push(aggregations(r.aggregations.recent));
    root.replaceChildren.apply(root, parts);
  }

  var problem = document.getElementById('problem');
  function poll() {
    fetch('status.json', { cache: 'no-store', headers: { accept: 'application/json' } })
      .then(function (res) { if (!res.ok) throw new Error('status.json answered ' + res.status); return res.json(); })
      .then(function (r) {
        refreshMs = r.refreshMs || refreshMs;
        render(r);
        problem.classList.add('hidden');
        document.body.setAttribute('data-state', 'live');
      })
      .catch(function (err) {
        problem.textContent = 'Could not refresh: ' + err.message + '. Trying again.';
        problem.classList.remove('hidden');
        document.body.setAttribute('data-state', 'stale');
      })
      .finally(function () { setTimeout(poll, refreshMs); });
  }
  poll();
})();
`;
