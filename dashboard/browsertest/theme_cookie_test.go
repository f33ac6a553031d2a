package browsertest_test

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// isolatedTab opens a tab of browser in a browser context of its own, so
// its cookies (the theme's) are not shared with other tabs. It is closed
// when t ends.
func isolatedTab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	return isolatedTabFor(t, browser, browserTimeout)
}

// isolatedTabFor is isolatedTab with a deadline of d, for a subtest that
// walks many pages (TestAxe: every page at two widths).
func isolatedTabFor(t *testing.T, browser context.Context, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, d)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// setThemeCookie sets the dashboard's theme cookie in tab, as the top
// bar's toggle does ("" leaves the cookie alone).
func setThemeCookie(t *testing.T, tab context.Context, s *site, theme string) {
	t.Helper()
	if theme == "" {
		return
	}
	if _, err := chromedp.Call(tab, network.SetCookie, network.SetCookieParams{
		Name: "hopper_theme", Value: theme, URL: s.url("/"), Path: mountPrefix + "/"}); err != nil {
		t.Fatal(err)
	}
}
