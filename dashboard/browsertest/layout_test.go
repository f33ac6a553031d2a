package browsertest_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper/dashboard"
)

// TestLayout loads the pages at a phone's, a tablet's and a desktop's width
// and checks that none scrolls sideways: the top bar wraps, the search
// stays on screen, and a jobs list turns its rows into cards on a phone.
// Screenshots of each width are kept (50-…).
func TestLayout(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	s := newSite(t, nil)
	pages := []struct{ name, path, wait string }{
		{"queues", "/", "table.queues"},
		{"ready", "/queues/default/ready", "#jobs-region table"},
		{"garbage", "/queues/default/garbage", "#jobs-region table"},
		{"job", "/jobs/default/" + s.f.Garbage[0], "#job-head-region"},
		{"workers", "/workers", "#workers-region"},
		{"schedules", "/schedules", "#schedules-region"},
		{"workflows", "/workflows", "main"},
		{"errors", "/queues/default/errors", "#errors-region"},
	}
	for _, width := range []int64{360, 768, 1400} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			tab := newTab(t, browser, nil)
			if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 800)); err != nil {
				t.Fatal(err)
			}
			for _, p := range pages {
				nav(t, tab, s, p.path, p.wait)
				got := textOfJS(t, tab, `(function () {
					var doc = document.documentElement, find = document.querySelector('.find input').getBoundingClientRect();
					var wide = Array.from(document.querySelectorAll('body *')).filter(function (e) {
						var r = e.getBoundingClientRect();
						return r.width > 0 && r.right > window.innerWidth + 1 && !e.closest('.table-wrap, .tabs, .mainnav, .wf-graph-wrap');
					}).slice(0, 3).map(function (e) { return e.tagName + '.' + e.className; });
					return [doc.scrollWidth <= window.innerWidth, find.left >= 0 && find.right <= window.innerWidth, wide.join(' ')].join('|');
				})()`)
				if got != "true|true|" {
					t.Errorf("%s at %d px: fits the width | search on screen | elements past the right edge = %q, want \"true|true|\"", p.name, width, got)
				}
				// The search form's fields are as tall as a caption and a
				// field, whether in a row or stacked.
				tall := textOfJS(t, tab, `Array.from(document.querySelectorAll('.search label')).filter(function (l) {
					return l.getBoundingClientRect().height > 100;
				}).map(function (l) { return l.textContent.trim() + ' ' + Math.round(l.getBoundingClientRect().height) + 'px'; }).join(', ')`)
				if tall != "" {
					t.Errorf("%s at %d px: search fields taller than 100 px: %s", p.name, width, tall)
				}
				if p.name == "ready" || p.name == "job" {
					screenshot(t, tab, shots, fmt.Sprintf("50-%s-%d", p.name, width))
				}
				if p.name == "ready" && width == 1400 {
					// The queue's history, opened.
					nav(t, tab, s, "/queues/mailers/ready?range=24h#history", "#history[open]")
					screenshot(t, tab, shots, "51-queue-history")
				}
			}
			if width == 360 {
				// Cards: each row of the jobs list shows its fields, labelled,
				// one under the other, instead of a squeezed table row.
				nav(t, tab, s, "/queues/default/garbage", "#jobs-region table")
				got := textOfJS(t, tab, `(function () {
					var td = document.querySelector('#jobs-region tbody tr td[data-label="Kind"]');
					return getComputedStyle(td).display + ' ' + getComputedStyle(td, '::before').content;
				})()`)
				if got != `block "Kind"` {
					t.Errorf("a job row's kind cell at 360 px: display and label %q, want block \"Kind\"", got)
				}
			}
		})
	}
}

// TestLayoutLongTitle: with a title longer than "hopper" (the demo's
// "hopper demo", a team's long name) the top bar keeps the whole theme
// switch (Light | Dark | Auto), the search and the sections at every
// width; the title wraps to two lines, then is cut with "…", instead. The theme switch
// shrank below its buttons, cutting "Auto" to "Au" at 1280, 1440 and 1920
// px with "hopper demo".
func TestLayoutLongTitle(t *testing.T) {
	browser := startBrowser(t)
	for _, title := range []string{"hopper demo", "Acme Corporation production job queues, EU west cluster"} {
		s := newSite(t, &dashboard.Config{Title: title})
		for _, width := range []int64{360, 768, 1280, 1440, 1920} {
			t.Run(fmt.Sprintf("%d/%s", width, title[:4]), func(t *testing.T) {
				tab := newTab(t, browser, nil)
				if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 800)); err != nil {
					t.Fatal(err)
				}
				nav(t, tab, s, "/", "table.queues")
				got := textOfJS(t, tab, `(function () {
					var bad = [], vw = document.documentElement.clientWidth;
					var theme = document.querySelector('.theme'), tr = theme.getBoundingClientRect();
					if (theme.scrollWidth > theme.clientWidth) bad.push('theme scrolls ' + theme.scrollWidth + '>' + theme.clientWidth);
					theme.querySelectorAll('button').forEach(function (b) {
						var r = b.getBoundingClientRect();
						if (r.left < tr.left - 0.5 || r.right > tr.right + 0.5 || r.right > vw) bad.push(b.textContent + ' cut');
					});
					document.querySelectorAll('.topbar-inner > *, .mainnav a').forEach(function (e) {
						var r = e.getBoundingClientRect();
						if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5)) bad.push(e.className || e.textContent + ' off screen');
						if (e.scrollWidth > e.clientWidth + 1 && !e.matches('.brand, .mainnav')) bad.push((e.className || e.textContent) + ' clipped');
					});
					var brand = document.querySelector('.brand span'), br = brand.getBoundingClientRect();
					if (br.width < 40) bad.push('title ' + Math.round(br.width) + ' px wide');
					var others = ['.mainnav', '.find', '.theme'].map(function (c) { return document.querySelector(c).getBoundingClientRect(); });
					others.forEach(function (o, i) {
						if (o.top < br.bottom && o.bottom > br.top && o.left < br.right && o.right > br.left) bad.push('title overlaps ' + i);
					});
					var cut = brand.scrollWidth > brand.clientWidth + 1 || brand.scrollHeight > brand.clientHeight + 1, cs = getComputedStyle(brand);
					if (cut && cs.textOverflow !== 'ellipsis' && cs.webkitLineClamp === 'none') bad.push('title cut without …');
					if (br.height > 2.5 * parseFloat(cs.lineHeight)) bad.push('title ' + Math.round(br.height) + ' px high');
					return bad.join(', ');
				})()`)
				if got != "" {
					t.Errorf("top bar at %d px with title %q: %s", width, title, got)
				}
			})
		}
	}
}
