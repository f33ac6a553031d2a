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
  // selected, and the form goes only if it is accepted, with confirm=1 so
  // that the server acts at once. (Without this file the server answers
  // the unconfirmed form with a confirmation page: see ask.go.)
  function setupConfirm() {
    document.addEventListener('submit', function (ev) {
      var b = ev.submitter;
      var q = (b && b.getAttribute('data-confirm')) || ev.target.getAttribute('data-confirm');
      if (!q) return;
      var n = all('input[type=checkbox][name=id]').filter(function (x) { return x.checked; }).length;
      q = q.replace('{n}', fmt(n)).replace('{jobs}', n === 1 ? 'job' : 'jobs');
      if (!window.confirm(q)) { ev.preventDefault(); return; }
      var c = ev.target.querySelector('input[name=confirm]');
      if (!c) {
        c = document.createElement('input');
        c.type = 'hidden';
        c.name = 'confirm';
        ev.target.appendChild(c);
      }
      c.value = '1';
    });
  }

  // An action's outcome comes in the redirect's query (flash, n, fs): shown
  // once, then taken out of the address, so that a reload or a bookmark
  // does not show it again. And a row of tabs too wide for the screen
  // scrolls to the current one.
  function tidyPage() {
    var u = new URL(window.location.href);
    if (u.searchParams.has('flash')) {
      u.searchParams.delete('flash');
      u.searchParams.delete('n');
      u.searchParams.delete('fs');
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
    all('[data-chart-ymid]').forEach(function (el) { setText(el, fmt(t.ymid)); });
  }

  // Live updates: fetch the stats every data-refresh ms while the page is
  // visible; on a page that follows the event stream, only after events
  // came (at most once per data-refresh), and otherwise every ten times
  // data-refresh as a safety net. Only numbers change; the page is never
  // reloaded. It returns the function that asks for a refresh.
  function setupLive(live, withEvents) {
    var src = document.body.getAttribute('data-live');
    var every = live.every;
    if (!src || !(every > 0) || !window.fetch) return function () {};
    live.show();
    // With events, the stream's "alive" messages (one per store read, every
    // data-refresh at most) keep the page live between the rare polls.
    live.expect(every);
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
      if (document.hidden || live.paused) return schedule();
      wanted = false;
      var sent = Date.now();
      fetch(src, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
        .then(function (r) {
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.json();
        })
        .then(function (s) {
          apply(s);
          live.ok(sent);
          bump('data-live-updates');
        })
        .catch(function (err) { live.fail('the numbers could not be fetched (' + err.message + ')'); })
        .then(schedule);
    }
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) tick();
    });
    live.onResume(tick);
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

  // Events: follow the page's event stream (server-sent events). The
  // browser reconnects by itself when a stream ends, resuming after the
  // last message's ID (Last-Event-ID: the "alive" messages carry one too,
  // so a stream that saw no event resumes as well). An answer other than
  // 200 closes an EventSource for good (the server's 503 when the store
  // did not answer a stream's first request, a proxy's 502): the page then
  // opens a new one after a back-off (2 s, doubling up to 16 s, back to 2
  // s once a message came), from the last ID seen (&from=), so that the
  // events that came meanwhile still reach it. While the stream is down
  // the page is stale whatever its other updates say: it follows the job
  // or queue through these events. It returns whether the page has one.
  function setupEvents(live, refresh) {
    var src = document.body.getAttribute('data-events');
    if (!src || !window.EventSource) return false;
    var n = 0;
    var pos = ''; // the last message's ID: where a new stream resumes
    var delay = 0; // the back-off before the next new stream
    var gap = false; // a new stream opened without a position: events may be missing
    // heard notes a message of the stream: the server read the store just
    // now.
    function heard(m) {
      if (m.lastEventId) pos = m.lastEventId;
      delay = 0;
      live.up();
      live.ok();
    }
    function open() {
      var es = new EventSource(pos ? src + (src.indexOf('?') < 0 ? '?' : '&') + 'from=' + encodeURIComponent(pos) : src);
      es.addEventListener('job', function (m) {
        heard(m);
        if (live.paused) return;
        var ev;
        try { ev = JSON.parse(m.data); } catch (e) { return; }
        onJobEvent(ev);
        n++;
        document.body.setAttribute('data-events-received', String(n));
        var count = document.getElementById('activity-count');
        if (count) setText(count, fmt(n) + ' events');
        refresh();
      });
      // Events the store no longer had (trimmed, or not written while
      // nobody read them), or a position past the end of the stream (it
      // started over: a Redis flush): the page catches up by fetching
      // what it shows.
      es.addEventListener('lost', function (m) {
        var why = 'some events were missed (the feed fell behind the stream)';
        try {
          var reason = JSON.parse(m.data).reason;
          if (reason === 'past_end' || reason === 'started_over') why = 'the event stream started over (Redis flushed?): the feed goes on from its oldest event';
        } catch (e) { /* an older server's {} */ }
        noteActivity({ type: 'lost', id: why, kind: '', at: new Date().toISOString(), url: '#', attempt: 0 });
        refresh();
      });
      // An open stream is not a live page: the server may be stuck reading
      // the store (a frozen Redis). Only "alive" messages, sent after each
      // store read that succeeded, and events say the page is live.
      es.addEventListener('open', function () { live.show(); });
      es.addEventListener('alive', function (m) {
        heard(m);
        bump('data-events-alive');
        if (gap) {
          // The stream never had a position: it follows from now on,
          // and the page catches up on what it shows by fetching it.
          gap = false;
          noteActivity({ type: 'lost', id: 'events before the feed reopened may be missing', kind: '', at: new Date().toISOString(), url: '#', attempt: 0 });
          refresh();
        }
      });
      es.addEventListener('error', function () {
        live.down('the event stream was interrupted (reconnecting)');
        if (es.readyState !== EventSource.CLOSED) return; // the browser reconnects
        delay = Math.min(delay ? 2 * delay : 2000, 16000);
        setTimeout(function () {
          gap = !pos;
          open();
        }, delay);
      });
    }
    open();
    return true;
  }

  // bump adds one to a counter kept in an attribute of the body (what the
  // browser tests wait on).
  function bump(attr) {
    document.body.setAttribute(attr, String(Number(document.body.getAttribute(attr) || 0) + 1));
  }

  // setupLiveStatus returns the controller every live update reports to:
  // it keeps the status in the top bar ("live", "paused", "stale"), the
  // pause button (the choice lasts for the tab's session), and a banner
  // that says when the page stopped following the store: after a failed
  // refresh, when none succeeded for three of the longest periods the
  // page's updates declared (expect; a request that hangs), or while the
  // page's event stream is down (see down). While the page is stale its
  // live parts are dimmed. Only an answer to a request sent after the page
  // turned stale makes it live again (see ok), and the event stream's
  // next message once it was down.
  function setupLiveStatus() {
    var status = document.getElementById('live-status');
    var text = status && status.querySelector('.live-text');
    var button = document.getElementById('live-pause');
    var banner = document.getElementById('live-stale');
    var every = Number(document.body.getAttribute('data-refresh'));
    var resumes = [];
    var last = Date.now(); // when the last update that counted came
    var longest = every; // the longest period between two updates
    var failure = '';
    var failedAt = 0; // when the last update failed
    var streamDown = ''; // why the event stream is down (see down)
    var wasStale = false;
    var stored = false;
    try { stored = window.sessionStorage.getItem('hopper-live-paused') === '1'; } catch (e) { /* no storage */ }
    var live = {
      every: every,
      paused: stored,
      shown: false,
      show: function () {
        if (!status || live.shown) return;
        live.shown = true;
        status.hidden = false;
        if (button) button.hidden = false;
        render();
      },
      // ok notes an answer to a request the page sent at sent (a
      // Date.now(); now when omitted, for what the server sends as soon as
      // the store answered: the event stream's messages). An answer says
      // that the store answered after the request was sent, not that it
      // answers when the answer comes: one to a request sent before the
      // last failure, or before the page turned stale, changes nothing.
      // (A refresh sent just before Redis froze, whose first read was
      // answered and whose later reads failed after their timeouts, is
      // answered seconds later, without what it could not read: the
      // workflow page leaves out its unserved-queues hint. It must not
      // call the frozen store live.)
      ok: function (sent) {
        var now = Date.now();
        if (sent === undefined) sent = now;
        if (sent < failedAt || (overdue(now) && sent < dueBy())) return;
        last = now;
        failure = '';
        render();
      },
      fail: function (why) {
        failure = why;
        failedAt = Date.now();
        render();
      },
      // down notes that the event stream, which the page follows the
      // store through, stopped, for why: the page is stale until up,
      // whatever the answers to its other requests (they do not bring
      // its events).
      down: function (why) {
        streamDown = why;
        failedAt = Date.now();
        render();
      },
      up: function () {
        if (!streamDown) return;
        streamDown = '';
        render();
      },
      onResume: function (f) { resumes.push(f); },
      // expect declares that an update comes at least every ms.
      expect: function (ms) { longest = Math.max(longest, ms); }
    };
    // dueBy is when the page turns stale unless an update comes first.
    function dueBy() { return last + 3 * longest + 2000; }
    function overdue(now) { return live.shown && now > dueBy(); }
    function stale() {
      return !live.paused && (failure !== '' || streamDown !== '' || overdue(Date.now()));
    }
    function render() {
      if (!status) return;
      var s = stale();
      if (s && !wasStale) bump('data-stale-shows');
      wasStale = s;
      status.classList.toggle('stale', s);
      status.classList.toggle('paused', live.paused);
      document.body.classList.toggle('is-stale', s);
      var at = new Date(last).toLocaleTimeString();
      if (text) setText(text, live.paused ? 'paused' : s ? 'stale' : 'live');
      status.title = live.paused ? 'Live updates paused: the page stays as it is until you resume'
        : s ? 'Live updates stopped: ' + (failure || streamDown || 'no answer from the server') + '; showing the state at ' + at
          : 'Live: updated ' + at;
      if (button) {
        setText(button, live.paused ? 'Resume' : 'Pause');
        button.setAttribute('aria-pressed', live.paused ? 'true' : 'false');
      }
      if (banner) {
        banner.hidden = !s;
        if (s) {
          var why = banner.querySelector('.stale-why');
          var when = banner.querySelector('.stale-at');
          if (why) setText(why, failure || streamDown || 'the server has not answered');
          if (when) setText(when, at);
        }
      }
    }
    if (button) {
      button.addEventListener('click', function () {
        live.paused = !live.paused;
        try { window.sessionStorage.setItem('hopper-live-paused', live.paused ? '1' : '0'); } catch (e) { /* no storage */ }
        if (!live.paused) {
          last = Date.now();
          resumes.forEach(function (f) { f(); });
        }
        render();
      });
    }
    if (every > 0) window.setInterval(render, 1000);
    return live;
  }

  // normalize returns a region's HTML without the text of its <time>
  // elements ("3s ago" changes on every render; when it changed is what
  // their attributes say).
  function normalize(html) {
    return html.replace(/(<time\b[^>]*>)[\s\S]*?(<\/time>)/g, '$1$2');
  }

  // focusSig describes a control well enough to find it again in a
  // region's fresh copy: its tag, id, link, form action, name, value and
  // text.
  function focusSig(el) {
    var f = el.form;
    return [el.tagName, el.id, el.getAttribute('href') || '', f ? f.getAttribute('action') || '' : '',
      el.name || '', el.value || '', (el.textContent || '').trim()].join('\u0000');
  }

  // focusIn returns where the focus is inside region (its control's
  // signature and rank among those alike), or null.
  function focusIn(region) {
    var a = document.activeElement;
    if (!a || a === document.body || !region.contains(a)) return null;
    var sig = focusSig(a);
    var alike = all(a.tagName, region).filter(function (e) { return focusSig(e) === sig; });
    return { tag: a.tagName, sig: sig, rank: alike.indexOf(a) };
  }

  // refocus puts the focus back on the control of fresh that focusIn
  // noted in the copy it replaced, so that a keyboard user stays where
  // they were (the focus fell to the page's start with each swap).
  function refocus(fresh, at) {
    if (!at) return;
    var alike = all(at.tag, fresh).filter(function (e) { return focusSig(e) === at.sig; });
    var el = alike[Math.min(Math.max(at.rank, 0), alike.length - 1)];
    if (el) el.focus({ preventScroll: true });
  }

  // captureRegions notes, before any other script touches the page, the
  // HTML of its live regions as the server sent it.
  function captureRegions() {
    var out = {};
    all('[data-live-region][id]').forEach(function (r) { out[r.id] = normalize(r.outerHTML); });
    return out;
  }

  // dirty reports whether the user is busy inside region: a box ticked, a
  // field typed in or focused. The region is then held, not swapped.
  function dirty(region) {
    var a = document.activeElement;
    if (a && a !== document.body && region.contains(a) && /^(INPUT|TEXTAREA|SELECT)$/.test(a.tagName) && a.type !== 'checkbox') return true;
    return all('input, textarea, select', region).some(function (f) {
      if (f.type === 'checkbox' || f.type === 'radio') return f.id !== 'select-all' && f.checked !== f.defaultChecked;
      if (f.tagName === 'SELECT') return all('option', f).some(function (o) { return o.selected !== o.defaultSelected; });
      return f.type !== 'hidden' && f.value !== f.defaultValue;
    });
  }

  // Live regions: the parts of a page marked data-live-region (a jobs
  // list, a job, the workers, the schedules) follow the store. Every
  // data-refresh ms, and soon after an event of the page's stream (the
  // function returned), while the page is visible and live updates are not
  // paused, the page is fetched again and each region swapped for its
  // fresh copy when that changed; a change of times alone ("3s ago")
  // swaps it at most every ten refreshes. A region the user is busy in
  // (see dirty) is held until they are done. Open <details> and scroll
  // positions are kept; the page is never reloaded.
  function setupRegions(live, seen) {
    var ids = Object.keys(seen);
    var every = live.every;
    if (!ids.length || !(every > 0) || !window.fetch || !window.DOMParser) return function () {};
    live.show();
    live.expect(every);
    var timer = null;
    var busy = false;
    var raw = {};
    var sinceSwap = 0;
    var last = 0; // when the last fetch started
    function schedule() {
      clearTimeout(timer);
      timer = setTimeout(tick, every);
    }
    // soon asks for a refresh now that an event said something moved: at
    // once, or a period after the last one.
    function soon() {
      if (busy) return;
      clearTimeout(timer);
      timer = setTimeout(tick, Math.max(0, last + every - Date.now()));
    }
    function swap(old, fresh) {
      var open = all('details', old).map(function (d) { return d.open; });
      var scrolls = all('.table-wrap', old).map(function (e) { return [e.scrollLeft, e.scrollTop]; });
      var at = focusIn(old);
      old.replaceWith(fresh);
      refocus(fresh, at);
      all('details', fresh).forEach(function (d, i) { if (i < open.length) d.open = open[i]; });
      all('.table-wrap', fresh).forEach(function (e, i) {
        if (scrolls[i]) {
          e.scrollLeft = scrolls[i][0];
          e.scrollTop = scrolls[i][1];
        }
      });
    }
    function tick() {
      if (busy) return;
      if (document.hidden || live.paused) {
        if (live.paused) bump('data-live-skips');
        return schedule();
      }
      busy = true;
      sinceSwap++;
      last = Date.now();
      var started = last;
      // X-Hopper-Regions: the server may leave out what lies outside them.
      fetch(window.location.href, { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'text/html', 'X-Hopper-Regions': '1' } })
        .then(function (r) {
          if (r.status === 404) throw new Error('HTTP 404: what this page shows is gone');
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.text();
        })
        .then(function (html) {
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var held = false;
          var swapped = false;
          ids.forEach(function (id) {
            var old = document.getElementById(id);
            var fresh = doc.getElementById(id);
            if (!old || !fresh) return;
            var n = normalize(fresh.outerHTML);
            var changed = n !== seen[id];
            if (!changed && (fresh.outerHTML === raw[id] || sinceSwap < 10)) return;
            if (dirty(old)) {
              held = true;
              return;
            }
            seen[id] = n;
            raw[id] = fresh.outerHTML;
            swap(old, document.adoptNode(fresh));
            swapped = true;
          });
          if (swapped) {
            sinceSwap = 0;
            setupSelection();
            bump('data-region-swaps');
          }
          document.body.classList.toggle('is-held', held);
          live.ok(started);
          bump('data-region-updates');
        })
        .catch(function (err) { live.fail('the page could not be fetched (' + err.message + ')'); })
        .then(function () {
          busy = false;
          schedule();
        });
    }
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) tick();
    });
    live.onResume(tick);
    schedule();
    return soon;
  }

  // Live fragments: the part of a page marked data-fragment="URL" (the
  // workflow pages: a graph and a table that change shape, not only
  // numbers) is fetched again every data-refresh ms while the page is
  // visible, half as often while it is marked data-fragment-idle
  // (nothing in it is running), and swapped in when its data-version
  // changed. Scroll positions inside it are kept; the page is never
  // reloaded.
  function setupFragments(live) {
    var first = document.querySelector('[data-fragment][id]');
    var every = live.every;
    if (!first || !(every > 0) || !window.fetch || !window.DOMParser) return;
    var id = first.id;
    var n = 0;
    var timer = null;
    var busy = false; // a fetch is under way: it schedules the next
    live.show();
    live.expect(2 * every); // the idle period: "live" stays a few periods' truth
    function current() { return document.getElementById(id); }
    function schedule() {
      clearTimeout(timer);
      var box = current();
      if (box) timer = setTimeout(tick, box.hasAttribute('data-fragment-idle') ? 2 * every : every);
    }
    function swap(box, fresh) {
      var scrolls = all('.wf-graph-wrap, .table-wrap', box).map(function (e) { return [e.scrollLeft, e.scrollTop]; });
      var at = focusIn(box);
      box.replaceWith(fresh);
      refocus(fresh, at);
      all('.wf-graph-wrap, .table-wrap', fresh).forEach(function (e, i) {
        if (scrolls[i]) {
          e.scrollLeft = scrolls[i][0];
          e.scrollTop = scrolls[i][1];
        }
      });
    }
    // done notes a successful refresh sent at sent, whether or not the
    // part changed.
    function done(sent) {
      n++;
      document.body.setAttribute('data-fragment-updates', String(n));
      live.ok(sent);
    }
    function tick() {
      var box = current();
      if (!box || busy) return;
      if (document.hidden || live.paused) return schedule();
      busy = true;
      var sent = Date.now();
      var headers = { Accept: 'text/html', 'If-None-Match': '"' + box.getAttribute('data-version') + '"' };
      fetch(box.getAttribute('data-fragment'), { credentials: 'same-origin', cache: 'no-store', headers: headers })
        .then(function (r) {
          if (r.status === 304) return null; // unchanged
          if (!r.ok) throw new Error('HTTP ' + r.status);
          return r.text();
        })
        .then(function (html) {
          if (html === null) return done(sent);
          var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById(id);
          if (!fresh) throw new Error('the answer has no #' + id);
          box = current();
          if (box && fresh.getAttribute('data-version') !== box.getAttribute('data-version')) {
            swap(box, document.adoptNode(fresh));
            bump('data-fragment-swaps');
          }
          done(sent);
        })
        .catch(function (err) { live.fail('the page could not be fetched (' + err.message + ')'); })
        .then(function () {
          busy = false;
          schedule();
        });
    }
    document.addEventListener('visibilitychange', function () {
      if (!document.hidden) tick();
    });
    live.onResume(tick);
    schedule();
  }

  // Copy buttons (a job's ID, its args as JSON): shown only where the
  // browser offers the clipboard; each copies its data-copy text, or the
  // text of the element data-copy-from names within its panel.
  function setupCopy() {
    if (!navigator.clipboard || !navigator.clipboard.writeText) return;
    document.body.classList.add('js-copy');
    document.addEventListener('click', function (ev) {
      var b = ev.target.closest && ev.target.closest('button.copy');
      if (!b) return;
      var text = b.getAttribute('data-copy');
      if (text === null) {
        var src = (b.closest('.panel') || document).querySelector(b.getAttribute('data-copy-from'));
        text = src ? src.textContent : '';
      }
      var label = b.getAttribute('data-label') || b.textContent;
      b.setAttribute('data-label', label);
      navigator.clipboard.writeText(text).then(function () { b.textContent = 'Copied'; }, function () { b.textContent = 'Copy failed'; })
        .then(function () { setTimeout(function () { b.textContent = label; }, 1500); });
    });
  }

  // A search that found nothing yet in the stretch it examined goes on by
  // itself (a link marked data-auto-continue), replacing the page, until
  // it finds something, reaches the end, or the user stops it (its Stop
  // link, or pausing live updates).
  function setupAutoContinue(live) {
    var a = document.querySelector('a[data-auto-continue]');
    if (!a) return;
    setTimeout(function () {
      if (!live.paused && document.querySelector('a[data-auto-continue]')) window.location.replace(a.href);
    }, 20);
  }

  var live = setupLiveStatus();
  var regions = captureRegions();
  tidyPage();
  setupSelection();
  setupConfirm();
  setupCopy();
  // A form sent back with a bad value: the focus goes to the first field
  // to fix, whose error its aria-describedby names (it stayed at the
  // page's start).
  var bad = document.querySelector('[aria-invalid="true"]');
  if (bad) bad.focus();
  setupAutoContinue(live);
  setupFragments(live);
  var regionsSoon = setupRegions(live, regions);
  var refresh = function () {};
  var withEvents = setupEvents(live, function () {
    refresh();
    regionsSoon();
  });
  refresh = setupLive(live, withEvents);
})();

// The colour theme buttons of the top bar, at once.
// Without this file the buttons submit a GET form that sets the same
// cookie and reloads the page (theme.go); with it, a click sets the cookie
// and switches the dark style sheet's media query in place.
(function () {
  'use strict';
  var form = document.getElementById('theme-form');
  var sheet = document.getElementById('dark-css');
  if (!form || !sheet) return;
  var media = { light: 'not all', dark: 'all', system: '(prefers-color-scheme: dark)' };
  // The cookie's path is the dashboard's: the form's action without "theme".
  var path = new URL(form.action, location.href).pathname.replace(/theme$/, '');
  form.addEventListener('click', function (e) {
    var b = e.target.closest('button[name="theme"]');
    if (!b || !media[b.value]) return;
    e.preventDefault();
    var theme = b.value;
    document.cookie = 'hopper_theme=' + theme + '; path=' + path + '; max-age=31536000; samesite=lax' + (location.protocol === 'https:' ? '; secure' : '');
    sheet.media = media[theme];
    if (theme === 'system') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.setAttribute('data-theme', theme);
    Array.prototype.forEach.call(form.querySelectorAll('button[name="theme"]'), function (x) {
      x.setAttribute('aria-pressed', String(x === b));
    });
  });
})();
