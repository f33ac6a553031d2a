package hopper

import (
	"reflect"

	"github.com/hopperq/hopper/internal/fieldcopy"
	"github.com/hopperq/hopper/store"
)

// How EnqueueOpts reaches a store.NewJob, derived once by reflection rather
// than copied field by field: every NewJob field (its JobSpec's included)
// takes the EnqueueOpts field of the same name and type. The fields that
// come another way are listed in optsOtherWay, the ones no option sets in
// optsNotSettable, each with why; a test fails when a NewJob field is in
// none of the three (a new JobSpec field needs an EnqueueOpts field of its
// name, or an entry here).

// optsOtherWay are the NewJob fields newJob sets from something else than
// an EnqueueOpts field of their name.
var optsOtherWay = map[string]string{
	"Kind":      "the args' Kind method",
	"Args":      "the args, encoded",
	"UniqueKey": "EnqueueOpts.Unique.Key (by default the kind and a hash of the args)",
	"UniqueFor": "EnqueueOpts.Unique.For",
}

// optsNotSettable are the NewJob fields no enqueue option sets, with why.
var optsNotSettable = map[string]string{
	"Schedule": "only a periodic job has one: the Scheduler enqueues the ticks of a Schedule",
	"Tick":     "only a periodic job has one: the Scheduler enqueues the ticks of a Schedule",
}

var (
	// optsPlan copies the options set into a job, maps and slices copied;
	// optsMissing are the NewJob fields with no way in (a test wants none).
	optsPlan, optsMissing = buildOptsPlan()
	// overlayPlan copies the options set over others (mergeOpts).
	overlayPlan = buildOverlayPlan()
)

func buildOptsPlan() (*fieldcopy.Plan[EnqueueOpts, store.NewJob], []string) {
	ot := reflect.TypeFor[EnqueueOpts]()
	var pairs []fieldcopy.Pair
	var missing []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[store.NewJob]()) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		if _, ok := optsOtherWay[f.Name]; ok {
			continue
		}
		if _, ok := optsNotSettable[f.Name]; ok {
			continue
		}
		of, ok := ot.FieldByName(f.Name)
		if !ok || of.Type != f.Type {
			missing = append(missing, f.Name)
			continue
		}
		pairs = append(pairs, fieldcopy.Pair{From: of.Index, To: f.Index})
	}
	return fieldcopy.New[EnqueueOpts, store.NewJob](pairs, true), missing
}

func buildOverlayPlan() *fieldcopy.Plan[EnqueueOpts, EnqueueOpts] {
	var pairs []fieldcopy.Pair
	for _, f := range reflect.VisibleFields(reflect.TypeFor[EnqueueOpts]()) {
		pairs = append(pairs, fieldcopy.Pair{From: f.Index, To: f.Index})
	}
	return fieldcopy.New[EnqueueOpts, EnqueueOpts](pairs, false)
}
