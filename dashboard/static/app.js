// hopper dashboard: progressive enhancement only. Every page works without
// this file; with it, counts and charts refresh in place, the queue and job
// pages follow the queue's event stream (an activity feed, rows marked when
// their job moves, the job's state, progress bar and log lines), the
// workflow pages redraw their live part (graph, counts, table), and the
// bulk selection gets a select-all box. No inline script anywhere (the CSP
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

  // Destructive actions ask first: a submit button (or its form) with
  // data-confirm shows that question, "{n}" replaced by the number of jobs
  // selected, and the form goes only if it is accepted. (Actions on every
  // job of a state have a confirmation page of their own, which works
  // without this file too.)
  function setupConfirm() {
    document.addEventListener('submit', function (ev) {
      var b = ev.submitter;
      var q = (b && b.getAttribute('data-confirm')) || ev.target.getAttribute('data-confirm');
      if (!q) return;
      var n = all('input[type=checkbox][name=id]').filter(function (x) { return x.checked; }).length;
      q = q.replace('{n}', fmt(n)).replace('{jobs}', n === 1 ? 'job' : 'jobs');
      if (!window.confirm(q)) ev.preventDefault();
    });
  }

  // An action's outcome comes in the redirect's query (flash, n): shown
  // once, then taken out of the address, so that a reload or a bookmark
  // does not show it again. And a row of tabs too wide for the screen
  // scrolls to the current one.
  function tidyPage() {
    var u = new URL(window.location.href);
    if (u.searchParams.has('flash')) {
      u.searchParams.delete('flash');
      u.searchParams.delete('n');
      window.history.replaceState(window.history.state, '', u.pathname + u.search + u.hash);
    }
    all('.tabs [aria-current=page]').forEach(function (tab) {
      var bar = tab.parentNode;
      if (bar.scrollWidth > bar.clientWidth) {
        var off = tab.getBoundingClientRect().left - bar.getBoundingClientRect().left;
        bar.scrollLeft += off - (bar.clientWidth - tab.offsetWidth) / 2;
      }
    });
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
  // visible; on a page that follows the event stream, only after events
  // came (at most once per data-refresh), and otherwise every ten times
  // data-refresh as a safety net. Only numbers change; the page is never
  // reloaded. It returns the function that asks for a refresh.
  function setupLive(withEvents) {
    var src = document.body.getAttribute('data-live');
    var every = Number(document.body.getAttribute('data-refresh'));
    var status = document.getElementById('live-status');
    if (!src || !(every > 0) || !window.fetch) return function () {};
    status.hidden = false;
    var timer = null;
    var wanted = false;
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(tick, withEvents && !wanted ? 10 * every : every);
    }
    function request() {
      if (wanted) return;
      wanted = true;
      schedule();
    }
    function tick() {
      if (document.hidden) return schedule();
      wanted = false;
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
    return request;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function clock(iso) {
    var d = new Date(iso);
    function pad(n, w) { return String(n).padStart(w || 2, '0'); }
    return pad(d.getUTCHours()) + ':' + pad(d.getUTCMinutes()) + ':' + pad(d.getUTCSeconds()) + '.' + pad(d.getUTCMilliseconds(), 3);
  }

  function stateBadge(st) {
    var s = el('span', 'state state-' + st, st);
    s.title = st;
    return s;
  }

  // byJob returns the elements whose attribute attr names job id.
  function byJob(attr, id) {
    return all('[' + attr + ']').filter(function (e) { return e.getAttribute(attr) === id; });
  }

  var MAX_LINES = 100;

  // showProgress moves the job page's progress bar and appends log lines.
  function showProgress(p) {
    var panel = document.getElementById('progress-panel');
    var bar = document.getElementById('progress-bar');
    if (!panel || !bar) return;
    panel.hidden = false;
    if (p.percent >= 0) {
      bar.value = p.percent;
      setText(document.getElementById('progress-text'), Math.round(p.percent) + '%');
    } else {
      bar.removeAttribute('value');
      setText(document.getElementById('progress-text'), 'no percentage reported');
    }
    var data = document.getElementById('progress-data');
    if (data && p.data) {
      data.hidden = false;
      setText(data, p.data);
    }
    var log = document.getElementById('job-log');
    (p.log || []).forEach(function (l) {
      var li = el('li');
      var t = el('time', '', clock(l.at));
      t.setAttribute('datetime', l.at);
      li.appendChild(t);
      li.appendChild(document.createTextNode(' '));
      li.appendChild(el('span', '', l.text));
      log.appendChild(li);
    });
    while (log.children.length > MAX_LINES) log.removeChild(log.firstChild);
  }

  // noteActivity adds an event to the queue page's activity feed.
  function noteActivity(ev) {
    var list = document.getElementById('activity-list');
    if (!list) return;
    document.getElementById('activity').hidden = false;
    var empty = document.getElementById('activity-empty');
    if (empty) empty.hidden = true;
    var li = el('li', 'ev ev-' + ev.type);
    var t = el('time', 'muted', clock(ev.at));
    t.setAttribute('datetime', ev.at);
    li.appendChild(t);
    li.appendChild(el('span', 'evtype', ev.type));
    var a = el('a', 'mono', ev.id);
    a.href = ev.url;
    li.appendChild(a);
    li.appendChild(el('span', 'kind', ev.kind));
    if (ev.attempt) li.appendChild(el('span', 'muted', 'attempt ' + ev.attempt));
    if (ev.worker) li.appendChild(el('span', 'muted', 'on ' + ev.worker));
    if (ev.error) li.appendChild(el('span', 'err', ev.error.length > 160 ? ev.error.slice(0, 159) + '…' : ev.error));
    if (ev.progress && ev.progress.percent >= 0) li.appendChild(el('span', 'muted', Math.round(ev.progress.percent) + '%'));
    list.insertBefore(li, list.firstChild);
    while (list.children.length > MAX_LINES) list.removeChild(list.lastChild);
  }

  // onJobEvent applies one event of the stream to the page.
  function onJobEvent(ev) {
    if (ev.state) {
      byJob('data-job-state', ev.id).forEach(function (e) {
        var listed = document.getElementById('activity-list');
        var here = listed && listed.getAttribute('data-queue-state');
        e.textContent = '';
        if (e.classList.contains('moved')) {
          // A row of the jobs list: say where the job went.
          if (ev.state === here) {
            e.hidden = true;
          } else {
            e.hidden = false;
            e.appendChild(document.createTextNode('→ '));
            e.appendChild(stateBadge(ev.state));
          }
          var row = e.closest('tr');
          if (row) row.classList.toggle('row-moved', ev.state !== here);
          return;
        }
        e.appendChild(stateBadge(ev.state));
      });
    }
    if (ev.type !== 'progress' && ev.type !== 'enqueued') {
      byJob('data-job-attempt', ev.id).forEach(function (e) { setText(e, String(ev.attempt)); });
    }
    if (ev.progress && document.getElementById('job-id')) showProgress(ev.progress);
    if (ev.type === 'started') {
      var panel = document.getElementById('progress-panel');
      if (panel) panel.hidden = false;
    }
    noteActivity(ev);
  }

  // Events: follow the page's event stream (server-sent events; the browser
  // reconnects and resumes by itself). It returns whether the page has one.
  function setupEvents(refresh) {
    var src = document.body.getAttribute('data-events');
    if (!src || !window.EventSource) return false;
    var status = document.getElementById('live-status');
    var es = new EventSource(src);
    var n = 0;
    es.addEventListener('job', function (m) {
      var ev;
      try { ev = JSON.parse(m.data); } catch (e) { return; }
      onJobEvent(ev);
      n++;
      document.body.setAttribute('data-events-received', String(n));
      var count = document.getElementById('activity-count');
      if (count) setText(count, fmt(n) + ' events');
      refresh();
    });
    es.addEventListener('lost', function () {
      noteActivity({ type: 'lost', id: 'some events were missed (the feed fell behind the stream)', kind: '', at: new Date().toISOString(), url: '#', attempt: 0 });
    });
    es.addEventListener('open', function () {
      if (status) {
        status.hidden = false;
        status.classList.remove('stale');
      }
    });
    es.addEventListener('error', function () {
      if (status) {
        status.classList.add('stale');
        status.title = 'Event stream interrupted; reconnecting';
      }
    });
    return true;
  }

  // Live fragments: the part of a page marked data-fragment="URL" (the
  // workflow pages: a graph and a table that change shape, not only
  // numbers) is fetched again every data-refresh ms while the page is
  // visible, ten times less often while it is marked data-fragment-idle
  // (nothing in it is running), and swapped in when its data-version
  // changed. Scroll positions inside it are kept; the page is never
  // reloaded.
  function setupFragments() {
    var first = document.querySelector('[data-fragment][id]');
    var every = Number(document.body.getAttribute('data-refresh'));
    var status = document.getElementById('live-status');
    if (!first || !(every > 0) || !window.fetch || !window.DOMParser) return;
    var id = first.id;
    var n = 0;
    var timer = null;
    var busy = false; // a fetch is under way: it schedules the next
    status.hidden = false;
    function current() { return document.getElementById(id); }
    function schedule() {
      clearTimeout(timer);
      var box = current();
      if (box) timer = setTimeout(tick, box.hasAttribute('data-fragment-idle') ? 10 * every : every);
    }
    function swap(box, fresh) {
      var scrolls = all('.wf-graph-wrap, .table-wrap', box).map(function (e) { return [e.scrollLeft, e.scrollTop]; });
      box.replaceWith(fresh);
      all('.wf-graph-wrap, .table-wrap', fresh).forEach(function (e, i) {
        if (scrolls[i]) {
          e.scrollLeft = scrolls[i][0];
          e.scrollTop = scrolls[i][1];
        }
      });
    }
    // done notes a successful refresh, whether or not the part changed.
    function done() {
      n++;
      document.body.setAttribute('data-fragment-updates', String(n));
      status.classList.remove('stale');
      status.title = 'Live: updated ' + new Date().toLocaleTimeString();
    }
    function tick() {
      var box = current();
      if (!box || busy) return;
      if (document.hidden) return schedule();
      busy = true;
      var headers = { Accept: 'text/html', 'If-None-Match': '"' + box.getAttribute('data-version') + '"' };
      fetch(box.getAttribute('data-fragment'), { credentials: 'same-origin', cache: 'no-store', headers: headers })
        .then(function (r) {
          if (r.status === 304) return null; // unchanged
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.text();
        })
        .then(function (html) {
          if (html === null) return done();
          var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(id);
          if (!fresh) throw new Error('the answer has no #' + id);
          box = current();
          if (box && fresh.getAttribute('data-version') !== box.getAttribute('data-version')) {
            swap(box, document.adoptNode(fresh));
            document.body.setAttribute('data-fragment-swaps', String(Number(document.body.getAttribute('data-fragment-swaps') || 0) + 1));
          }
          done();
        })
        .catch(function (err) {
          status.classList.add('stale');
          status.title = 'Live updates failing: ' + err.message;
        })
        .then(function () {
          busy = false;
          schedule();
        });
    }
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) tick();
    });
    schedule();
  }

  tidyPage();
  setupSelection();
  setupConfirm();
  setupFragments();
  var refresh = function () {};
  var withEvents = setupEvents(function () { refresh(); });
  refresh = setupLive(withEvents);
})();
