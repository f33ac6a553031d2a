package browsertest_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTabletPhone checks the lists, the overview, the state tabs and the
// job page at a tablet's and a phone's width: a list is cards with room
// for the args and the error, the selection box sits beside the job's ID,
// the overview shows every count and the pause button without scrolling
// sideways, the tabs wrap, and a failed job's last error is on the first
// screen of its page.
func TestTabletPhone(t *testing.T) {
	browser := startBrowser(t)
	s, lj := seedEveryPage(t)
	for _, width := range []int64{768, 360} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			tab := newTab(t, browser, nil)
			if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 800)); err != nil {
				t.Fatal(err)
			}
			check := func(what, js, want string) {
				t.Helper()
				if got := textOfJS(t, tab, js); got != want {
					t.Errorf("at %d px, %s: got %q, want %q", width, what, got, want)
				}
			}
			nav(t, tab, s, "/queues/"+lj.Queue+"/retry", "table.jobs")
			check("a list row is a card whose args and error have room", `(function () {
				var row = document.querySelector('table.jobs tbody tr');
				var args = row.querySelector('td.args').getBoundingClientRect().width, err = row.querySelector('td.err .clip2').getBoundingClientRect().width;
				return [getComputedStyle(row.querySelector('td.args')).display, args >= 0.7 * row.getBoundingClientRect().width, err >= 0.5 * row.getBoundingClientRect().width].join(' ');
			})()`, "block true true")
			check("the selection box lies left of the job ID", `(function () {
				var row = document.querySelector('table.jobs tbody tr');
				var box = row.querySelector('td.sel input').getBoundingClientRect(), id = row.querySelector('td.id a').getBoundingClientRect();
				return String(box.width > 0 && box.right + 2 <= id.left);
			})()`, "true")
			check("every state tab is on screen, none clipped", `(function () {
				var tabs = document.querySelector('.tabs'), out = [];
				tabs.querySelectorAll('.tab').forEach(function (a) {
					var r = a.getBoundingClientRect();
					if (r.left < 0 || r.right > window.innerWidth || a.scrollWidth > a.clientWidth) out.push(a.textContent.trim());
				});
				return out.join(',') + '|' + (tabs.scrollWidth <= tabs.clientWidth);
			})()`, "|true")

			nav(t, tab, s, "/", "table.queues")
			check("every section of the top bar is on screen", `Array.from(document.querySelectorAll('.mainnav a')).filter(function (a) {
				var r = a.getBoundingClientRect();
				return r.left < 0 || r.right > window.innerWidth;
			}).map(function (a) { return a.textContent; }).join(',')`, "")
			check("every count, latency and pause button of the overview is on screen", `(function () {
				var out = [];
				document.querySelectorAll('table.queues tbody tr').forEach(function (tr) {
					tr.querySelectorAll('a.count, td[data-latency], td.actions form:not([hidden]) button').forEach(function (e) {
						var r = e.getBoundingClientRect();
						if (r.width === 0 || r.left < 0 || r.right > window.innerWidth) out.push(tr.querySelector('.qname a').textContent + ':' + (e.dataset.count || e.dataset.latency || e.textContent));
					});
				});
				return out.join(' ');
			})()`, "")

			nav(t, tab, s, "/jobs/"+lj.Queue+"/"+lj.Retry, "#job-head-region")
			check("the job page's panels are one column", `(function () {
				var ps = document.querySelectorAll('.job-grid > .panel');
				return String(ps.length >= 2 && ps[0].getBoundingClientRect().width === ps[1].getBoundingClientRect().width && ps[1].getBoundingClientRect().top > ps[0].getBoundingClientRect().top);
			})()`, "true")
			check("the job's last error is on the first screen, linked to the errors", `(function () {
				var e = document.getElementById('last-error');
				if (!e) return 'no summary';
				var r = e.getBoundingClientRect();
				return [r.top >= 0 && r.bottom <= window.innerHeight, e.querySelector('a').getAttribute('href')].join(' ');
			})()`, "true #errors")
		})
	}
}
