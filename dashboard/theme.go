package dashboard

import (
	"net/http"
	"strings"
	"time"
)

// The colour theme an operator picks in the top bar: "light", "dark", or
// "" to follow the system's setting (prefers-color-scheme), the default.
// It lives in a cookie, set by a plain GET form so it works without
// JavaScript; app.js sets the same cookie and switches at once.

// themeCookie is the cookie holding the chosen theme.
const themeCookie = "hopper_theme"

// themeFrom returns the theme r's cookie chose: "light", "dark" or "" for
// the system's. Anything else counts as "".
func themeFrom(r *http.Request) string {
	c, err := r.Cookie(themeCookie)
	if err != nil {
		return ""
	}
	switch c.Value {
	case "light", "dark":
		return c.Value
	}
	return ""
}

// darkMedia is the media query the layout links static/dark.css with for
// theme: always for dark, never for light, else the system's choice.
func darkMedia(theme string) string {
	switch theme {
	case "dark":
		return "all"
	case "light":
		return "not all"
	}
	return "(prefers-color-scheme: dark)"
}

// serveTheme sets the theme cookie from ?theme= (light, dark or system;
// without one it sets nothing and shows the overview) and sends the browser back to ?return=, a page of the dashboard (the
// overview when it is missing or not one of ours).
func (d *dash) serveTheme(w http.ResponseWriter, r *http.Request) {
	theme := r.URL.Query().Get("theme")
	switch theme {
	case "light", "dark", "system":
	case "": // a plain link here: nothing to set
		http.Redirect(w, r, d.home(), http.StatusSeeOther)
		return
	default:
		d.renderError(w, r, http.StatusBadRequest, "No such theme", "Pick light, dark or system.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     themeCookie,
		Value:    theme,
		Path:     d.cfg.Prefix + "/",
		MaxAge:   int((365 * 24 * time.Hour).Seconds()),
		SameSite: http.SameSiteLaxMode,
		Secure:   r.TLS != nil,
	})
	back := r.URL.Query().Get("return")
	if !d.isOwnPage(back) {
		back = d.home()
	}
	http.Redirect(w, r, back, http.StatusSeeOther)
}

// isOwnPage reports whether u is a path of a dashboard page: under the
// prefix, with no scheme or host (so not "//elsewhere" or "/\elsewhere").
func (d *dash) isOwnPage(u string) bool {
	if !strings.HasPrefix(u, d.cfg.Prefix+"/") || strings.HasPrefix(u, "//") || strings.ContainsAny(u, "\\\r\n") {
		return false
	}
	rest := strings.TrimPrefix(u, d.cfg.Prefix)
	return !strings.HasPrefix(rest, "//")
}

// here is the URL of the page r asked for, prefix included, for a form
// that sends the browser back to it.
func (d *dash) here(r *http.Request) string {
	return d.cfg.Prefix + r.URL.RequestURI()
}
