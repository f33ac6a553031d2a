package main

import (
	"strings"
	"testing"
	"time"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/dashboard"
)

// printJob shows the options that are set, each on a line of its own, an
// option added to store.JobSpec included (they are listed, not named).
func TestPrintJobOptions(t *testing.T) {
	j := &hopper.JobRecord{ID: "j1", Queue: "q", Kind: "k", State: hopper.StateReady, JobSpec: hopper.JobSpec{
		Group: "tenant-7", MaxRetries: 3, Timeout: 90 * time.Second, UniqueKey: "uk", UniqueFor: time.Minute}}
	var out strings.Builder
	printJob(&out, j, toCLIJob(j, dashboard.RedactFunc(func(_ string, v any) any { return v })), time.Now())
	for _, want := range []string{"Attempts:     0 of 4\n", "Group:        tenant-7\n", "Timeout:      1m30s\n", "Unique key:   uk\n", "Unique for:   1m0s\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	for _, unset := range []string{"Priority:", "Retention:", "Max retries:"} {
		if strings.Contains(out.String(), unset) {
			t.Errorf("output shows %q, not set:\n%s", unset, out.String())
		}
	}
}
