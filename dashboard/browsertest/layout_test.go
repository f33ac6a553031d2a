package browsertest_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
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
