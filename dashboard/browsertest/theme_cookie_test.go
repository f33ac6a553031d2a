package browsertest_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

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
