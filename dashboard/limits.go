package dashboard

import (
	"errors"
	"net/http"
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
	// Groups are the queue's first groups by name (at most maxGroupsShown),
	// More whether there are others; both empty when the store keeps no
	// groups or the queue has none.
	Groups []hopper.GroupStats
	More   bool
}

// maxGroupsShown bounds the groups a jobs page lists.
const maxGroupsShown = 50

// limitsForm holds the edit form's values: the queue's, or what was sent.
type limitsForm struct {
	MaxRunning, RateLimit, RatePeriod, RateBurst, Retention, GroupMaxRunning, GroupRateLimit, GroupRatePeriod, GroupRateBurst string
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
	return v
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

// postLimits sets a queue's MaxRunning, rate limit (RateLimit,
// RatePeriod, RateSmooth, RateBurst) and Retention, the group limits and
// the kind index from the jobs page's form (Inspector.SetQueueConfig). An
// empty field means none; an unticked box turns its setting off, and the
// smooth mode and burst of a rate left empty are dropped with it. The
// queue's pause and events settings are kept as read just before.
func (d *dash) postLimits(r *http.Request) (outcome, error) {
	queue := r.PathValue("queue")
	if err := store.ValidateQueue(queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	st, err := d.ins.GetQueueStats(r.Context(), queue)
	if err != nil {
		return outcome{}, err
	}
	cfg := st.Config
	bad := func(msg string) error { return &userError{http.StatusBadRequest, "Cannot save the limits", msg} }
	count := func(field, label string) (int, error) {
		v := strings.TrimSpace(r.PostFormValue(field))
		if v == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, bad(label + " must be a whole number of 0 or more (empty for none), not “" + v + "”.")
		}
		return n, nil
	}
	dur := func(field, label string) (time.Duration, error) {
		v := strings.TrimSpace(r.PostFormValue(field))
		if v == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, bad(label + " must be a duration such as 1s, 10m or 24h (empty for none), not “" + v + "”.")
		}
		return d, nil
	}
	if cfg.MaxRunning, err = count("max_running", "Max running"); err != nil {
		return outcome{}, err
	}
	if cfg.RateLimit, err = count("rate_limit", "Rate limit"); err != nil {
		return outcome{}, err
	}
	if cfg.RatePeriod, err = dur("rate_period", "Rate period"); err != nil {
		return outcome{}, err
	}
	if cfg.RateBurst, err = count("rate_burst", "Burst"); err != nil {
		return outcome{}, err
	}
	cfg.RateSmooth = r.PostFormValue("rate_smooth") == "1"
	if cfg.RateLimit == 0 {
		cfg.RateSmooth, cfg.RateBurst = false, 0
	}
	if cfg.Retention, err = dur("retention", "Retention"); err != nil {
		return outcome{}, err
	}
	if cfg.GroupMaxRunning, err = count("group_max_running", "Max running per group"); err != nil {
		return outcome{}, err
	}
	if cfg.GroupRateLimit, err = count("group_rate_limit", "Rate limit per group"); err != nil {
		return outcome{}, err
	}
	if cfg.GroupRatePeriod, err = dur("group_rate_period", "Rate period per group"); err != nil {
		return outcome{}, err
	}
	if cfg.GroupRateBurst, err = count("group_rate_burst", "Burst per group"); err != nil {
		return outcome{}, err
	}
	cfg.GroupRateSmooth = r.PostFormValue("group_rate_smooth") == "1"
	if cfg.GroupRateLimit == 0 {
		cfg.GroupRateSmooth, cfg.GroupRateBurst = false, 0
	}
	cfg.KindIndex = r.PostFormValue("kind_index") == "1"
	if err := d.ins.SetQueueConfig(r.Context(), queue, cfg); err != nil {
		if errors.Is(err, hopper.ErrInvalidConfig) {
			return outcome{}, bad(err.Error())
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

// postGroupLimit gives one group of a queue a cap of its own, or removes
// it with an empty or zero "limit" (Inspector.SetGroupLimit).
func (d *dash) postGroupLimit(r *http.Request) (outcome, error) {
	queue := r.PathValue("queue")
	if err := store.ValidateQueue(queue); err != nil {
		return outcome{}, &userError{http.StatusNotFound, "No such queue", err.Error()}
	}
	bad := func(msg string) error { return &userError{http.StatusBadRequest, "Cannot set the group's cap", msg} }
	group := strings.TrimSpace(r.PostFormValue("group"))
	if group == "" {
		return outcome{}, bad("Name the group.")
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
