package browsertest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// fitsJS reports, for the page it runs on, everything that does not fit
// the window's width: the page scrolling sideways, a table wider than the
// box it scrolls in, a list row taller than maxRow px, and an action
// button of the job page off screen. "" when all fits.
const fitsJS = `(function (maxRow) {
	var w = window.innerWidth, bad = [];
	var doc = document.documentElement;
	if (doc.scrollWidth > w) bad.push('the page is ' + doc.scrollWidth + ' px wide');
	document.querySelectorAll('.table-wrap').forEach(function (wrap) {
		var t = wrap.querySelector('table');
		if (t && t.getBoundingClientRect().width > wrap.clientWidth + 1) bad.push('table.' + t.className.replace(/ /g, '.') + ' is ' + Math.round(t.getBoundingClientRect().width) + ' px in ' + wrap.clientWidth + ' px');
	});
	document.querySelectorAll('table.jobs tbody tr').forEach(function (tr) {
		var h = tr.getBoundingClientRect().height;
		if (h > maxRow) bad.push('a row is ' + Math.round(h) + ' px tall');
	});
	document.querySelectorAll('.head-actions .btn').forEach(function (b) {
		var r = b.getBoundingClientRect();
		if (r.left < 0 || r.right > w) bad.push('button ' + b.id + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + ' px');
	});
	return bad.join('; ');
})`

// TestLongContent loads the pages showing a job with a 240-character kind,
// a 64-character queue name, a 100-character group and long unbroken args
// and error at a desktop's, a tablet's and a phone's width: nothing
// scrolls sideways, list rows stay short, the job page's buttons stay on
// screen, and each shortened value carries its full text in a title.
func TestLongContent(t *testing.T) {
	browser := startBrowser(t)
	s, lj := seedEveryPage(t)
	pages := []sitePage{
		{"overview", "/"},
		{"list-retry", "/queues/" + lj.Queue + "/retry"},
		{"list-ready", "/queues/" + lj.Queue + "/ready"},
		{"errors", "/queues/" + lj.Queue + "/errors"},
		{"job", "/jobs/" + lj.Queue + "/" + lj.Retry},
		{"job-ready", "/jobs/" + lj.Queue + "/" + lj.Ready},
	}
	for _, width := range []int64{1400, 768, 360} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			t.Parallel()
			tab := newTab(t, browser, nil)
			if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 900)); err != nil {
				t.Fatal(err)
			}
			maxRow := 160
			if width <= 900 {
				maxRow = 320 // a card: one line a field
			}
			for _, p := range pages {
				nav(t, tab, s, p.path, "main")
				if bad := textOfJS(t, tab, fmt.Sprintf("%s(%d)", fitsJS, maxRow)); bad != "" {
					t.Errorf("%s at %d px: %s", p.name, width, bad)
				}
			}
			// The list shortens the kind, the group and the error, and keeps
			// each whole in a title.
			nav(t, tab, s, "/queues/"+lj.Queue+"/retry", "table.jobs")
			titles := textOfJS(t, tab, `(function () {
				var row = document.querySelector('table.jobs tbody tr');
				return [row.querySelector('.kind').title, row.querySelector('td.err [title]').title, row.querySelector('td.args [title]').title].join('\n');
			})()`)
			want := []string{longArgs{}.Kind(), "upstream: " + strings.Repeat("ERRORCODE_0xDEADBEEF_", 45), `"Payload":"` + strings.Repeat("a1b2c3d4", 75)}
			got := strings.Split(titles, "\n")
			for i, w := range want {
				if i >= len(got) || !strings.Contains(got[i], w) {
					t.Errorf("at %d px the list's title %d does not hold the whole value %.40q…", width, i, w)
				}
			}
		})
	}
}
