package dashboard

import (
	"net/http"
	"time"

	"github.com/hopperq/hopper"
)

// missedGrace is how late a tick may be before the page flags it as missed.
const missedGrace = time.Minute

// scheduleRow is one periodic schedule.
type scheduleRow struct {
	hopper.ScheduleInfo
	// Next is the next tick after now when the spec parses
	// (hopper.ParseSchedule), else the one recorded at registration.
	Next time.Time
	// Missed reports that a tick after the last one enqueued fell due over a
	// minute ago and was not enqueued: no process seems to run the
	// schedule.
	Missed bool
}

// schedulesPage is the data of the periodic jobs page.
type schedulesPage struct {
	base
	Schedules []scheduleRow
}

// scheduleRowOf computes the next and missed ticks of s at now.
func scheduleRowOf(s hopper.ScheduleInfo, now time.Time) scheduleRow {
	row := scheduleRow{ScheduleInfo: s, Next: s.Next}
	sched, err := hopper.ParseSchedule(s.Spec)
	if err != nil {
		row.Missed = !s.Next.IsZero() && now.Sub(s.Next) > missedGrace && s.LastTick.Before(s.Next)
		return row
	}
	row.Next = sched.Next(now)
	due := s.Next // the first tick after registration, when none ran since
	if !s.LastTick.IsZero() {
		due = sched.Next(s.LastTick)
	}
	row.Missed = !due.IsZero() && now.Sub(due) > missedGrace
	return row
}

// serveSchedules renders the registered periodic schedules with their last
// and next run.
func (d *dash) serveSchedules(w http.ResponseWriter, r *http.Request) {
	list, err := d.ins.Schedules(r.Context())
	if err != nil {
		d.storeError(w, r, "listing schedules", err)
		return
	}
	p := schedulesPage{base: d.base(r, "Periodic jobs", "schedules")}
	now := d.cfg.Now()
	for _, s := range list {
		p.Schedules = append(p.Schedules, scheduleRowOf(s, now))
	}
	d.render(w, r, http.StatusOK, "schedules", p)
}
