package browsertest_test

import (
	"context"
	"testing"
)

// setThemeCookie sets the dashboard's theme cookie in tab ("" leaves it).
func setThemeCookie(t *testing.T, tab context.Context, s *site, theme string) {
	t.Helper()
}
