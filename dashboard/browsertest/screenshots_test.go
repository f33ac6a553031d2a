package browsertest_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshots takes every page of everyPage at a desktop's, a
// tablet's and a phone's width in each colour scheme, saved as
// <page>-<width>-<scheme>.png in screenshotDir, and checks on each that
// the page does not scroll sideways.
func TestScreenshots(t *testing.T) {
	browser := startBrowser(t)
	shots := screenshotDir(t)
	t.Logf("screenshots: %s", shots)
	s, lj := seedEveryPage(t)
	pages := everyPage(s, lj)
	for _, cs := range colourSchemes {
		for _, width := range []int64{1400, 768, 360} {
			t.Run(fmt.Sprintf("%s-%d", cs.name, width), func(t *testing.T) {
				t.Parallel()
				tab := newTab(t, browser, nil)
				setScheme(t, tab, s, cs)
				if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 900)); err != nil {
					t.Fatal(err)
				}
				for _, p := range pages {
					nav(t, tab, s, p.path, "main")
					if w := textOfJS(t, tab, "String(document.documentElement.scrollWidth)"); w != fmt.Sprint(width) {
						t.Errorf("%s at %d px in %s is %s px wide", p.name, width, cs.name, w)
					}
					screenshot(t, tab, shots, fmt.Sprintf("%s-%d-%s", p.name, width, cs.name))
				}
			})
		}
	}
}
