// Package browsertest drives the dashboard in a real headless Chromium
// (Debian's chromium package): every page loads, search, actions, live
// updates, hostile input rendered as text, pages without JavaScript. It is
// a module of its own so that the browser driver (chromedp) stays out of
// hopper's module graph; run it with go test -C dashboard/browsertest ./...
// Under CI=true a missing Chromium fails the tests instead of skipping them.
package browsertest
