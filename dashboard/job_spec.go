package dashboard

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/internal/specview"
)

// specRow is one of a job's options (store.JobSpec) on its page. The
// template gives the rows named in its "specrow" definition a look of
// their own (priority, attempts, timeout) and shows any other by Label and
// Text, so that an option added to JobSpec shows with no edit here.
type specRow struct {
	// Name is the JobSpec field's name.
	Name  string
	Label string
	// Value is the field's value, and Text that value as the page writes
	// it.
	Value any
	Text  string
	Zero  bool
	// ID and Class are the value's element id ("job-unique-key") and
	// class.
	ID, Class string
	// Job and MaxAttempts are the job's, for the rows that show more
	// than their value.
	Job         *hopper.JobRecord
	MaxAttempts int
}

// specAlways are the options shown also when not set, as their default;
// specHidden the ones shown elsewhere on the page.
var (
	specAlways = map[string]bool{"Priority": true, "MaxRetries": true, "Timeout": true}
	specHidden = map[string]bool{"Meta": true} // the Metadata panel
	specClass  = map[string]string{"Group": "mono", "UniqueKey": "mono wrap"}
)

// specRows returns job's options to show, in JobSpec's order: every set
// one and those of specAlways.
func specRows(job *hopper.JobRecord) []specRow {
	var out []specRow
	for _, f := range specview.Fields(&job.JobSpec) {
		if specHidden[f.Name] || f.Zero && !specAlways[f.Name] {
			continue
		}
		r := specRow{Name: f.Name, Label: f.Label, Value: f.Value, Text: specText(f.Value), Zero: f.Zero,
			ID: "job-" + strings.ReplaceAll(strings.ToLower(f.Label), " ", "-"), Class: specClass[f.Name],
			Job: job, MaxAttempts: job.MaxRetries + 1}
		if _, ok := f.Value.(string); ok && r.Class == "" {
			r.Class = "wrap"
		}
		out = append(out, r)
	}
	return out
}

// specText writes an option's value as the page shows it.
func specText(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case time.Duration:
		return formatDuration(v)
	case time.Time:
		return absTime(v)
	case int:
		return strconv.Itoa(v)
	case bool:
		if v {
			return "yes"
		}
		return "no"
	case map[string]string, []string, []byte:
		return jsonText(v, false)
	}
	return fmt.Sprint(v)
}
