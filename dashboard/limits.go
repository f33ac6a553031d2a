package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// limitsView is a queue's limits as its jobs page shows them.
type limitsView struct {
	Config    hopper.QueueConfig
	RateUsed  int       // starts the rate limit counts now (hopper.QueueStats.RateUsed)
	HeldUntil time.Time // a RateLimited hold, zero when none
	// Building: the kind index is on and still indexing the jobs that
	// were there before (hopper.QueueStats.KindIndexBuilding).
	Building bool
	Form     limitsForm
	// Shown is what the page showed before the operator's edit, sent
	// back beside it (shown_ fields): the queue's, or, on a form sent back
	// with a bad value, what the first page showed.
	Shown limitsForm
	// Groups are the queue's first groups by name (at most maxGroupsShown),
	// More whether there are others; both empty when the store keeps no
	// groups or the queue has none.
	Groups []hopper.GroupStats
	More   bool
	Bad    formState // a limits or group form sent back with a bad value
}

// maxGroupsShown bounds the groups a jobs page lists.
const maxGroupsShown = 50

// limitsForm holds the edit form's values: the queue's, or what was sent.
type limitsForm struct {
	MaxRunning, RateLimit, RatePeriod, RateBurst, Retention, GroupMaxRunning, GroupRateLimit, GroupRatePeriod, GroupRateBurst string
	RateSmooth, GroupRateSmooth, KindIndex                                                                                    bool
}

func newLimitsView(st hopper.QueueStats, now time.Time) *limitsView {
	v := &limitsView{Config: st.Config, RateUsed: st.RateUsed, Building: st.KindIndexBuilding}
	if st.HeldUntil.After(now) {
		v.HeldUntil = st.HeldUntil
	}
	c := st.Config
	v.Form = limitsForm{MaxRunning: intField(c.MaxRunning), RateLimit: intField(c.RateLimit), RateBurst: intField(c.RateBurst),
		Retention: durField(c.Retention), GroupMaxRunning: intField(c.GroupMaxRunning), GroupRateLimit: intField(c.GroupRateLimit),
		GroupRateBurst: intField(c.GroupRateBurst)}
	if c.GroupRateLimit > 0 {
		v.Form.GroupRatePeriod = durField(c.GroupRatePeriod)
	}
	if c.RateLimit > 0 {
		v.Form.RatePeriod = durField(c.RatePeriod)
	}
	v.Form.RateSmooth, v.Form.GroupRateSmooth, v.Form.KindIndex = c.RateSmooth, c.GroupRateSmooth, c.KindIndex
	v.Shown = v.Form
	return v
}

// setBad shows a limits form sent back with a bad value: the typed values
// in the fields instead of the queue's.
func (v *limitsView) setBad(s formState) {
	v.Bad = s
	if s.Form != "limits" {
		return
	}
	v.Form = sentLimits(s.Values, "")
	if s.Values.Get("shown") == "1" {
		v.Shown = sentLimits(s.Values, "shown_")
	}
}

// sentLimits reads a limits form as sent, its fields named prefix+field.
func sentLimits(vals url.Values, prefix string) limitsForm {
	f := func(name string) string { return vals.Get(prefix + name) }
	return limitsForm{MaxRunning: f("max_running"), RateLimit: f("rate_limit"), RatePeriod: f("rate_period"), RateBurst: f("rate_burst"),
		Retention: f("retention"), GroupMaxRunning: f("group_max_running"), GroupRateLimit: f("group_rate_limit"),
		GroupRatePeriod: f("group_rate_period"), GroupRateBurst: f("group_rate_burst"),
		RateSmooth: f("rate_smooth") == "1", GroupRateSmooth: f("group_rate_smooth") == "1", KindIndex: f("kind_index") == "1"}
}

func intField(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func durField(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return shortDuration(d)
}

// postLimits changes a queue's MaxRunning, rate limit (RateLimit,
// RatePeriod, RateSmooth, RateBurst) and Retention, the group limits and
// the kind index from the jobs page's form (Inspector.UpdateQueueConfig).
// An empty field means none; an unticked box turns its setting off, and
// the smooth mode and burst of a rate left empty are dropped with it. The form sends, beside each field, the value
// the page showed (shown_<field>, with shown=1): only the fields the
// operator changed are changed, so a change another operator made since
// the page was rendered stays. A form without them (an older page, a
// script) sets every field it names as sent. The queue's pause and events
// settings are never changed here.
func (d *dash) postLimits(r *http.Request) (outcome, error) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	if err := d.settingsOnQueue(r.Context(), queue, "set its limits"); err != nil {
		return outcome{}, err
	}
	if ask, err := d.askUnknownQueue(r, queue, "Save the limits of "+queue+", a queue no store lists yet?", "Save the limits"); err != nil || ask != nil {
		return deref(ask), err
	}
	var cfg hopper.QueueConfig
	err := d.ins.UpdateQueueConfig(r.Context(), queue, func(c *hopper.QueueConfig) error {
		edited, shown := *c, *c
		if err := parseLimits(r, "", &edited); err != nil {
			return err
		}
		if r.PostFormValue("shown") == "1" {
			if err := parseLimits(r, "shown_", &shown); err != nil {
				return err
			}
		}
		c.ApplyChanges(shown, edited)
		// A rate left empty takes its smooth mode and burst with it.
		if c.RateLimit == 0 {
			c.RateSmooth, c.RateBurst = false, 0
		}
		if c.GroupRateLimit == 0 {
			c.GroupRateSmooth, c.GroupRateBurst = false, 0
		}
		cfg = *c
		return nil
	})
	if err != nil {
		var fe *formError
		if errors.As(err, &fe) {
			return outcome{}, err
		}
		if errors.Is(err, hopper.ErrInvalidConfig) {
			return outcome{}, &formError{"limits", "", err.Error()}
		}
		return outcome{}, err
	}
	to := d.queuePath(queue, hopper.StateReady)
	if st, err := store.ParseState(r.PostFormValue("return")); err == nil {
		to = d.queuePath(queue, st)
	}
	return outcome{to: to, flash: "limits", n: 1, attrs: []any{"queue", queue, "max_running", cfg.MaxRunning,
		"rate_limit", cfg.RateLimit, "rate_period", cfg.RatePeriod.String(), "rate_smooth", cfg.RateSmooth, "rate_burst", cfg.RateBurst,
		"retention", cfg.Retention.String(),
		"group_max_running", cfg.GroupMaxRunning, "group_rate_limit", cfg.GroupRateLimit, "kind_index", cfg.KindIndex}}, nil
}

// parseLimits sets the fields of cfg the limits form has from the form
// values named prefix+field, or returns a userError naming a bad one.
func parseLimits(r *http.Request, prefix string, cfg *hopper.QueueConfig) error {
	p := limitsParser{r: r, prefix: prefix}
	p.count("max_running", "Max running", &cfg.MaxRunning)
	p.count("rate_limit", "Rate limit", &cfg.RateLimit)
	p.dur("rate_period", "Rate period", &cfg.RatePeriod)
	p.count("rate_burst", "Burst", &cfg.RateBurst)
	cfg.RateSmooth = r.PostFormValue(prefix+"rate_smooth") == "1"
	p.dur("retention", "Retention", &cfg.Retention)
	p.count("group_max_running", "Max running per group", &cfg.GroupMaxRunning)
	p.count("group_rate_limit", "Rate limit per group", &cfg.GroupRateLimit)
	p.dur("group_rate_period", "Rate period per group", &cfg.GroupRatePeriod)
	p.count("group_rate_burst", "Burst per group", &cfg.GroupRateBurst)
	cfg.GroupRateSmooth = r.PostFormValue(prefix+"group_rate_smooth") == "1"
	cfg.KindIndex = r.PostFormValue(prefix+"kind_index") == "1"
	return p.err
}

// limitsParser reads the limits form's fields; after the first bad one
// it reads nothing more and keeps that field's error.
type limitsParser struct {
	r      *http.Request
	prefix string
	err    error
}

func (p *limitsParser) value(field string) string {
	return strings.TrimSpace(p.r.PostFormValue(p.prefix + field))
}

func (p *limitsParser) bad(field, msg string) {
	field = strings.TrimPrefix(field, "shown_")
	p.err = &formError{"limits", field, msg}
}

// count reads a whole number of 0 or more; empty means 0.
func (p *limitsParser) count(field, label string, to *int) {
	v := p.value(field)
	if p.err != nil {
		return
	}
	if v == "" {
		*to = 0
		return
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		p.bad(field, label+" must be a whole number of 0 or more (empty for none), not “"+v+"”.")
		return
	}
	*to = n
}

// dur reads a duration of 0 or more; empty means 0.
func (p *limitsParser) dur(field, label string, to *time.Duration) {
	v := p.value(field)
	if p.err != nil {
		return
	}
	if v == "" {
		*to = 0
		return
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		p.bad(field, label+" must be a duration such as 1s, 10m or 24h (empty for none), not “"+v+"”.")
		return
	}
	*to = d
}

// postGroupLimit gives one group of a queue a cap of its own, or removes
// it with an empty or zero "limit" (Inspector.SetGroupLimit).
func (d *dash) postGroupLimit(r *http.Request) (outcome, error) {
	queue := r.PathValue("queue")
	if err := d.checkQueue(r.Context(), queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	if err := d.settingsOnQueue(r.Context(), queue, "set a group's cap"); err != nil {
		return outcome{}, err
	}
	bad := func(msg string) error { return &formError{"group", "limit", msg} }
	group := strings.TrimSpace(r.PostFormValue("group"))
	if group == "" {
		return outcome{}, &formError{"group", "group", "Name the group."}
	}
	if ask, err := d.askUnknownQueue(r, queue, "Cap group "+group+" of "+queue+", a queue no store lists yet?", "Save the group's cap"); err != nil || ask != nil {
		return deref(ask), err
	}
	limit := 0
	if v := strings.TrimSpace(r.PostFormValue("limit")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return outcome{}, bad("The cap must be a whole number of 0 or more (empty or 0 for the queue's), not “" + v + "”.")
		}
		limit = n
	}
	if err := d.ins.SetGroupLimit(r.Context(), queue, group, limit); err != nil {
		if errors.Is(err, hopper.ErrInvalidConfig) || errors.Is(err, hopper.ErrNotSupported) {
			return outcome{}, bad(err.Error())
		}
		return outcome{}, err
	}
	return outcome{to: d.queuePath(queue, hopper.StateReady), flash: "grouplimit", n: 1,
		attrs: []any{"queue", queue, "group", group, "limit", limit}}, nil
}
