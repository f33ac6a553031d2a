package browsertest_test

import (
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// The page background of each scheme (--bg).
const (
	lightBg = "rgb(244, 246, 250)"
	darkBg  = "rgb(11, 17, 32)"
)

// TestThemeToggle picks the colour theme in the top bar, with JavaScript
// (at once, no reload) and without (a form that reloads): the page's
// background follows, the choice outlives a reload, and "Auto" goes back
// to the system's setting.
func TestThemeToggle(t *testing.T) {
	browser := startBrowser(t)
	s := newSite(t, nil)
	bg := "getComputedStyle(document.body).backgroundColor"

	t.Run("JavaScript", func(t *testing.T) {
		t.Parallel()
		tab := isolatedTab(t, browser)
		setScheme(t, tab, s, colourScheme{"light", "light", ""})
		nav(t, tab, s, "/queues/default/ready", "#theme-form")
		if got := textOfJS(t, tab, bg); got != lightBg {
			t.Fatalf("with a light system and no choice the page is %s, want %s", got, lightBg)
		}
		markNoReload(t, tab)
		click(t, tab, `#theme-form button[value="dark"]`)
		waitFor(t, tab, bg+" === "+jsString(darkBg), "the page to turn dark")
		requireNoReload(t, tab)
		if got := textOfJS(t, tab, `document.querySelector('#theme-form button[value="dark"]').getAttribute('aria-pressed')`); got != "true" {
			t.Errorf("the Dark button is aria-pressed=%q after its click", got)
		}
		if err := chromedp.Do(tab, chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS("#theme-form"))); err != nil {
			t.Fatal(err)
		}
		if got := textOfJS(t, tab, bg); got != darkBg {
			t.Errorf("after a reload the page is %s, want dark %s", got, darkBg)
		}
		click(t, tab, `#theme-form button[value="system"]`)
		waitFor(t, tab, bg+" === "+jsString(lightBg), "the page to follow the light system again")
	})

	t.Run("NoJavaScript", func(t *testing.T) {
		t.Parallel()
		tab := isolatedTab(t, browser)
		if _, err := chromedp.Call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		setScheme(t, tab, s, colourScheme{"dark", "dark", ""})
		nav(t, tab, s, "/queues/default/garbage?q=x", "#theme-form")
		if got := textOfJS(t, tab, bg); got != darkBg {
			t.Fatalf("with a dark system and no choice the page is %s, want %s", got, darkBg)
		}
		clickAndLoad(t, tab, `#theme-form button[value="light"]`)
		if got := textOfJS(t, tab, "location.pathname + location.search"); got != mountPrefix+"/queues/default/garbage?q=x" {
			t.Errorf("the theme form came back to %s, want the page it was sent from", got)
		}
		if got := textOfJS(t, tab, bg); got != lightBg {
			t.Errorf("after choosing light on a dark system the page is %s, want %s", got, lightBg)
		}
		nav(t, tab, s, "/workers", "#theme-form")
		if got := textOfJS(t, tab, bg); got != lightBg {
			t.Errorf("the next page is %s, want the chosen light %s", got, lightBg)
		}
	})
}
