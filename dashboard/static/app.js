// hopper dashboard: progressive enhancement only. Every page works without
// this file; with it, counts and charts refresh in place and the bulk
// selection gets a select-all box. No inline script anywhere (the CSP
// forbids it), no dependencies.
(function () {
  'use strict';

  var SVG = 'http://www.w3.org/2000/svg';

  function all(sel, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(sel));
  }

  function fmt(n) {
    return Number(n).toLocaleString('en-US');
  }

  // Bulk selection: enable the "selected" buttons only when something is
  // selected, and offer a select-all box.
  function setupSelection() {
    var boxes = all('input[type=checkbox][name=id]');
    var master = document.getElementById('select-all');
    var counter = document.getElementById('selected-count');
    function sync() {
      var n = boxes.filter(function (b) { return b.checked; }).length;
      all('[data-needs-selection]').forEach(function (b) { b.disabled = n === 0; });
      if (counter) counter.textContent = n ? '· ' + n + ' selected' : '';
      if (master) {
        master.checked = n > 0 && n === boxes.length;
        master.indeterminate = n > 0 && n < boxes.length;
      }
    }
    if (master && boxes.length) {
      master.hidden = false;
      master.addEventListener('change', function () {
        boxes.forEach(function (b) { b.checked = master.checked; });
        sync();
      });
    }
    boxes.forEach(function (b) { b.addEventListener('change', sync); });
    sync();
  }

  // drawChart replaces the bars of svg with those laid out by the server.
  function drawChart(svg, c) {
    all('g', svg).forEach(function (g) { g.remove(); });
    c.bars.forEach(function (b) {
      var g = document.createElementNS(SVG, 'g');
      var title = document.createElementNS(SVG, 'title');
      title.textContent = b.t;
      g.appendChild(title);
      [['done', b.dy, b.dh], ['failed', b.fy, b.fh]].forEach(function (r) {
        if (!r[2]) return;
        var rect = document.createElementNS(SVG, 'rect');
        rect.setAttribute('class', r[0]);
        rect.setAttribute('x', b.x);
        rect.setAttribute('y', r[1]);
        rect.setAttribute('width', b.w);
        rect.setAttribute('height', r[2]);
        g.appendChild(rect);
      });
      svg.appendChild(g);
    });
  }

  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }

  // apply writes fresh stats into the elements that declare what they show.
  function apply(s) {
    var byName = {};
    s.queues.forEach(function (q) { byName[q.name] = q; });
    all('[data-count]').forEach(function (el) {
      var parts = el.getAttribute('data-count').split('/');
      var q = byName[parts[0]];
      if (!q) return;
      var n = q.counts[parts[1]] || 0;
      setText(el, fmt(n));
      el.classList.toggle('zero', n === 0);
    });
    all('[data-total]').forEach(function (el) {
      setText(el, fmt(s.totals.counts[el.getAttribute('data-total')] || 0));
    });
    all('[data-latency]').forEach(function (el) {
      var q = byName[el.getAttribute('data-latency')];
      if (q) setText(el, q.latency);
    });
    all('[data-when-paused]').forEach(function (el) {
      var q = byName[el.getAttribute('data-when-paused')];
      if (q) el.hidden = !q.paused;
    });
    all('[data-when-running]').forEach(function (el) {
      var q = byName[el.getAttribute('data-when-running')];
      if (q) el.hidden = q.paused;
    });
    all('[data-total-paused]').forEach(function (el) { setText(el, fmt(s.totals.paused)); });
    all('[data-max-latency]').forEach(function (el) { setText(el, s.totals.max_latency); });
    all('svg[data-chart]').forEach(function (svg) {
      var key = svg.getAttribute('data-chart');
      var c = key === '' ? s.totals.chart : byName[key] && byName[key].chart;
      if (c) drawChart(svg, c);
    });
    var t = s.totals.chart;
    all('[data-chart-done]').forEach(function (el) { setText(el, fmt(t.done)); });
    all('[data-chart-failed]').forEach(function (el) { setText(el, fmt(t.failed)); });
    all('[data-chart-max]').forEach(function (el) { setText(el, fmt(t.max)); });
  }

  // Live updates: fetch the stats every data-refresh ms while the page is
  // visible. Only numbers change; the page is never reloaded.
  function setupLive() {
    var src = document.body.getAttribute('data-live');
    var every = Number(document.body.getAttribute('data-refresh'));
    var status = document.getElementById('live-status');
    if (!src || !(every > 0) || !window.fetch) return;
    status.hidden = false;
    var timer = null;
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(tick, every);
    }
    function tick() {
      if (document.hidden) return schedule();
      fetch(src, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.json();
        })
        .then(function (s) {
          apply(s);
          status.classList.remove('stale');
          status.title = 'Live: updated ' + new Date().toLocaleTimeString();
          document.body.setAttribute('data-live-updates', String(Number(document.body.getAttribute('data-live-updates') || 0) + 1));
        })
        .catch(function (err) {
          status.classList.add('stale');
          status.title = 'Live updates failing: ' + err.message;
        })
        .then(schedule);
    }
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) tick();
    });
    schedule();
  }

  setupSelection();
  setupLive();
})();
