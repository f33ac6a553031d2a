package browsertest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
)

// TestChartsLegendGroups checks what axe cannot see: the failed swatch of
// the overview's legend is the colour of the failed bars, each chart of a
// queue's history is named for what it shows, a chart with no data says
// so instead of a 0/0/0 axis, and the groups panel is a styled table whose
// header counts what it lists.
func TestChartsLegendGroups(t *testing.T) {
	browser := startBrowser(t)
	s, lj := seedEveryPage(t)
	if err := hopper.NewInspector(s.st).SetGroupLimit(context.Background(), lj.Queue, "capped-but-idle", 3); err != nil {
		t.Fatal(err)
	}
	tab := newTab(t, browser, nil)

	nav(t, tab, s, "/", "table.queues")
	swatch := textOfJS(t, tab, "getComputedStyle(document.querySelector('.legend .key-failed')).backgroundColor")
	bar := textOfJS(t, tab, "getComputedStyle(document.querySelector('svg.chart rect.failed')).fill")
	if swatch != bar {
		t.Errorf("the legend's failed swatch is %s, the failed bars %s", swatch, bar)
	}

	nav(t, tab, s, "/queues/mailers/ready?range=24h#history", "#history[open]")
	labels := textOfJS(t, tab, "Array.from(document.querySelectorAll('#history svg.chart')).map(function (c) { return c.getAttribute('aria-label'); }).join('\\n')")
	got := strings.Split(labels, "\n")
	if len(got) != 3 || !strings.HasPrefix(got[0], "Jobs finished") || !strings.HasPrefix(got[1], "Jobs ready") || !strings.HasPrefix(got[2], "How long the oldest ready job") {
		t.Errorf("the history charts are labelled:\n%s\nwant jobs finished, jobs ready, latency", labels)
	}

	// critical has never finished a job: its throughput chart is empty.
	nav(t, tab, s, "/queues/critical/ready?range=24h#history", "#history[open]")
	empty := textOfJS(t, tab, `(function () {
		var f = document.querySelector('#history .chart-frame');
		var note = f.querySelector('.chart-empty');
		return [note ? note.textContent : 'no note', note ? String(note.getBoundingClientRect().height > 0) : '', getComputedStyle(f.querySelector('.yaxis')).visibility].join('|');
	})()`)
	if empty != "No data yet in this range|true|hidden" {
		t.Errorf("an empty chart: note | shown | axis = %q, want \"No data yet in this range|true|hidden\"", empty)
	}

	nav(t, tab, s, "/queues/"+lj.Queue+"/ready", "#groups")
	groups := textOfJS(t, tab, `(function () {
		var table = document.querySelector('#groups table'), td = table.querySelector('td');
		return [getComputedStyle(td).paddingLeft !== '0px', getComputedStyle(table).borderCollapse, document.querySelector('#groups summary').textContent.replace(/\s+/g, ' ').trim()].join('|');
	})()`)
	if groups != "true|collapse|Groups: 2 groups with jobs ready or running, a cap of their own or a hold, served in turn" {
		t.Errorf("the groups panel: cell padded | borders | header = %q", groups)
	}
}
