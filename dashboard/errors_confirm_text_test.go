package dashboard_test

import (
	"net/url"
	"testing"

	"github.com/hopperq/hopper"
)

// TestErrorGroupConfirmText: the question an error group's action asks
// (the button's dialog, and the page without JavaScript) shows the error
// as it is, escaped by the template only. It was Go-quoted: back\\slash,
// \"xss\".
func TestErrorGroupConfirmText(t *testing.T) {
	eachStore(t, func(t *testing.T, s hopper.Store) {
		h := newHandler(s, nil)
		const msg = `permanent: perm <i>back\slash "xss"`
		failJobs(t, s, "mail", "send", 1, false, func(int) string { return msg })
		want := `Delete the 1 garbage send job failing with "` + msg + `"? This cannot be undone.`
		page := get(t, h, "/queues/mail/errors").Body
		wantContains(t, page, "errors page", `data-confirm="`+esc(want)+`"`)
		wantLacks(t, page, "errors page", `back\\slash`, `\&#34;xss\&#34;`)
		postAsked(t, h, "/queues/mail/errors", url.Values{"action": {"delete"}, "state": {"garbage"}, "kind": {"send"}, "key": {msg}}, want)
	})
}
