package browsertest_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/hopperq/hopper/dashboard/internal/dashtest"
)

// axeSource is axe-core, vendored (testdata/axe/README.md).
//
//go:embed testdata/axe/axe.min.js
var axeSource string

// sitePage is one page of the dashboard the accessibility and layout tests
// visit.
type sitePage struct {
	name string // stable, for screenshot file names
	path string // under the mount prefix
}

// everyPage returns every kind of page of s, seeded by seedEveryPage. To
// check a new page, add a line here: the axe test, the width test and the
// screenshots all take it.
func everyPage(s *site, lj longJob) []sitePage {
	pages := []sitePage{{"overview", "/"}}
	for _, st := range []string{"pending", "ready", "unack", "retry", "garbage", "done"} {
		pages = append(pages, sitePage{"list-" + st, "/queues/default/" + st})
	}
	return append(pages,
		sitePage{"list-long", "/queues/" + lj.Queue + "/retry"},
		sitePage{"job", "/jobs/default/" + s.f.Garbage[0]},
		sitePage{"job-long", "/jobs/" + lj.Queue + "/" + lj.Retry},
		sitePage{"errors", "/queues/default/errors"},
		sitePage{"retries", "/retries"},
		sitePage{"dead", "/dead"},
		sitePage{"workers", "/workers"},
		sitePage{"redis", "/redis"},
		sitePage{"schedules", "/schedules"},
		sitePage{"workflows", "/workflows"},
		sitePage{"workflow", "/workflows/" + dashtest.RunningWF},
		sitePage{"find", "/find?id=" + s.f.Garbage[0][:6]},
		sitePage{"confirm", "/queues/default/garbage/confirm?action=delete"},
		sitePage{"notfound", "/jobs/default/no-such-job"},
	)
}

// seedEveryPage serves a site with something on every page: the usual
// fixture, workflows, and a queue of jobs with long content.
func seedEveryPage(t *testing.T) (*site, longJob) {
	t.Helper()
	s := newSite(t, nil)
	dashtest.SeedWorkflows(t, s.st)
	return s, seedLongContent(t, s.st)
}

// colourScheme is how a page is shown: the system's scheme the browser
// reports, and the theme cookie of the dashboard's toggle ("" for none).
type colourScheme struct {
	name   string
	system string // prefers-color-scheme
	theme  string // the hopper_theme cookie
}

var colourSchemes = []colourScheme{
	{"light", "light", ""},
	{"dark", "dark", ""},
}

// chosenSchemes are the themes picked with the top bar's toggle, against
// the system's setting.
var chosenSchemes = []colourScheme{
	{"chosen-dark", "light", "dark"},
	{"chosen-light", "dark", "light"},
}

// setScheme makes tab report system as its prefers-color-scheme.
func setScheme(t *testing.T, tab context.Context, s *site, cs colourScheme) {
	t.Helper()
	if _, err := chromedp.Call(tab, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: cs.system}}}); err != nil {
		t.Fatal(err)
	}
	setThemeCookie(t, tab, s, cs.theme)
}

// axeViolation is the part of an axe-core result the test prints.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target         []any  `json:"target"`
		FailureSummary string `json:"failureSummary"`
	} `json:"nodes"`
}

// runAxe injects axe-core into the page of tab and returns its serious and
// critical violations under WCAG 2 A/AA and best practices.
func runAxe(t *testing.T, tab context.Context) []axeViolation {
	t.Helper()
	if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](axeSource+";true")); err != nil {
		t.Fatalf("injecting axe: %v", err)
	}
	out, err := chromedp.Run(tab, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ['violations']}).then(function (r) {
		return JSON.stringify(r.violations.filter(function (v) { return v.impact === 'serious' || v.impact === 'critical'; }));
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("running axe: %v", err)
	}
	var vs []axeViolation
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatalf("axe's answer %q: %v", out, err)
	}
	return vs
}

// formatViolations writes one violation a paragraph: rule, impact, then
// each element with what is wrong with it.
func formatViolations(vs []axeViolation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n  %s (%s): %s", v.ID, v.Impact, v.Help)
		for i, n := range v.Nodes {
			if i == 6 {
				fmt.Fprintf(&b, "\n    … and %d more", len(v.Nodes)-i)
				break
			}
			fmt.Fprintf(&b, "\n    %v\n      %s", n.Target, strings.ReplaceAll(n.FailureSummary, "\n", "\n      "))
		}
	}
	return b.String()
}

// TestAxe runs axe-core on every page in every colour scheme and fails on
// any serious or critical violation (contrast below AA, nested
// interactive elements, unnamed controls ...).
func TestAxe(t *testing.T) {
	browser := startBrowser(t)
	s, lj := seedEveryPage(t)
	pages := everyPage(s, lj)
	for _, cs := range append(colourSchemes, chosenSchemes...) {
		t.Run(cs.name, func(t *testing.T) {
			t.Parallel()
			// Every page twice, with axe on each: a minute per page at most.
			tab := isolatedTabFor(t, browser, time.Duration(2*len(pages))*time.Minute)
			setScheme(t, tab, s, cs)
			// A desktop's width, and a phone's, where lists are cards.
			for _, width := range []int64{1400, 360} {
				if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 900)); err != nil {
					t.Fatal(err)
				}
				for _, p := range pages {
					if err := chromedp.Do(tab, chromedp.Navigate(s.url(p.path)), chromedp.WaitVisible(chromedp.CSS("main"))); err != nil {
						t.Fatalf("loading %s: %v", p.path, err)
					}
					if vs := runAxe(t, tab); len(vs) > 0 {
						t.Errorf("%s (%s) at %d px in %s: %d serious or critical violations:%s", p.name, p.path, width, cs.name, len(vs), formatViolations(vs))
					}
				}
			}
		})
	}
}
