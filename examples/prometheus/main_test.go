package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"gopkg.in/yaml.v3"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/memstore"
)

// TestDashboardAndAlertsNameEmittedMetrics runs the example's pipeline on
// memstore with jobs that succeed and one that dies, scrapes /metrics over
// HTTP, and fails naming every metric that grafana-dashboard.json or
// alerts.yml uses and the program does not emit (the outbox relay's
// metrics are checked against outbox/pgxoutbox, which emits them).
func TestDashboardAndAlertsNameEmittedMetrics(t *testing.T) {
	emitted := scrapeRunningPipeline(t)
	for name := range outboxMetrics(t) {
		emitted[name] = true
	}
	exprs := dashboardExprs(t, "grafana-dashboard.json")
	exprs = append(exprs, alertExprs(t, "alerts.yml")...)
	if len(exprs) < 12 {
		t.Fatalf("found %d PromQL expressions in the dashboard and the alerts, want at least 12", len(exprs))
	}
	used := 0
	for _, e := range exprs {
		names := metricNames(e.expr)
		if len(names) == 0 {
			t.Errorf("%s: no metric name found in %q", e.where, e.expr)
		}
		for _, n := range names {
			used++
			if !emitted[n] {
				t.Errorf("%s: metric %q is not emitted (expression %q)", e.where, n, e.expr)
			}
		}
	}
	t.Logf("checked %d expressions, %d metric references", len(exprs), used)
}

// scrapeRunningPipeline runs the pipeline until a job has died and a few
// have succeeded, then returns the names of the samples of one scrape of
// its /metrics handler over HTTP (a histogram family x gives x_bucket,
// x_sum and x_count).
func scrapeRunningPipeline(t *testing.T) map[string]bool {
	t.Helper()
	ctx := t.Context()
	p, err := newPipeline(memstore.New(nil))
	if err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Worker.Run(wctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Worker.Run: %v", err)
		}
		if err := p.Shutdown(context.Background()); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	for i := range 5 {
		if _, err := hopper.Enqueue(ctx, p.Client, Resize{Image: "a.png"}, &hopper.EnqueueOpts{Queue: "images"}); err != nil {
			t.Fatal(err)
		}
		if _, err := hopper.Enqueue(ctx, p.Client, Charge{Cents: i, Refuse: i == 4}, &hopper.EnqueueOpts{Queue: "payments"}); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(p.Handler)
	t.Cleanup(srv.Close)

	deadline := time.Now().Add(20 * time.Second)
	for {
		fams := scrape(t, srv.URL)
		if n := counterValue(fams["messaging_client_consumed_messages_total"], "hopper_job_outcome", "garbage"); n >= 1 &&
			counterValue(fams["messaging_client_consumed_messages_total"], "hopper_job_outcome", "ack") >= 9 {
			names := map[string]bool{}
			for name, f := range fams {
				names[name] = true
				if f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY {
					for _, s := range []string{"_bucket", "_sum", "_count"} {
						names[name+s] = true
					}
				}
			}
			return names
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s the scrape shows no dead job and 9 acks: %v", fams["messaging_client_consumed_messages_total"])
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// scrape GETs url and parses the text exposition.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing /metrics: %v", err)
	}
	return fams
}

// counterValue sums the samples of a counter family whose label has value.
func counterValue(f *dto.MetricFamily, label, value string) float64 {
	var n float64
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				n += m.GetCounter().GetValue()
			}
		}
	}
	return n
}

// outboxMetrics reads the instrument names and units of the outbox relay
// from outbox/pgxoutbox/metrics.go and returns their Prometheus names as
// the OpenTelemetry exporter writes them (dots to underscores, "s" adds
// _seconds, a counter adds _total). The example runs no relay (it needs
// PostgreSQL); this keeps the dashboard and the alerts spelled as the relay
// emits.
func outboxMetrics(t *testing.T) map[string]bool {
	t.Helper()
	src, err := os.ReadFile("../../outbox/pgxoutbox/metrics.go")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\.(Int64|Float64)(ObservableGauge|Counter)\("([a-z_.]+)", metric\.WithUnit\("([^"]*)"\)`)
	out := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(src), -1) {
		name := strings.ReplaceAll(m[3], ".", "_")
		if m[4] == "s" {
			name += "_seconds"
		}
		if m[2] == "Counter" {
			name += "_total"
		}
		out[name] = true
	}
	if !out["hopper_outbox_oldest_age_seconds"] || len(out) < 4 {
		t.Fatalf("read %v from pgxoutbox/metrics.go: want its instruments, hopper_outbox_oldest_age_seconds among them", out)
	}
	return out
}

// labelValues matches Grafana's label_values(selector, label) query.
var labelValues = regexp.MustCompile(`^label_values\((.*),\s*[a-zA-Z_][a-zA-Z0-9_]*\)$`)

type promExpr struct{ where, expr string }

// dashboardExprs returns the PromQL of every panel target ("expr") and
// template variable ("definition") of a Grafana dashboard.
func dashboardExprs(t *testing.T, path string) []promExpr {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		SchemaVersion int `json:"schemaVersion"`
		Panels        []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
		Templating struct {
			List []struct {
				Name       string `json:"name"`
				Definition string `json:"definition"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if d.SchemaVersion < 36 || len(d.Panels) < 8 {
		t.Fatalf("%s: schemaVersion %d with %d panels, want a Grafana dashboard (schemaVersion >= 36) with the 8 panels", path, d.SchemaVersion, len(d.Panels))
	}
	var out []promExpr
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("%s: panel %q has no target", path, p.Title)
		}
		for _, tg := range p.Targets {
			out = append(out, promExpr{path + ": panel " + p.Title, tg.Expr})
		}
	}
	for _, v := range d.Templating.List {
		if v.Definition != "" {
			// Grafana's label_values(metric, label): only metric is a name.
			expr := labelValues.ReplaceAllString(v.Definition, "$1")
			out = append(out, promExpr{path + ": variable " + v.Name, expr})
		}
	}
	return out
}

// alertExprs returns the expr of every rule of a Prometheus rules file.
func alertExprs(t *testing.T, path string) []promExpr {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Groups []struct {
			Rules []struct {
				Alert string `yaml:"alert"`
				Expr  string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []promExpr
	var alerts []string
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			alerts = append(alerts, r.Alert)
			out = append(out, promExpr{path + ": alert " + r.Alert, r.Expr})
		}
	}
	want := []string{"HopperDeadJobs", "HopperOutboxLag", "HopperQueueLatencyHigh", "HopperWorkersGone"}
	slices.Sort(alerts)
	if !slices.Equal(alerts, want) {
		t.Errorf("%s: alerts %v, want %v", path, alerts, want)
	}
	return out
}

// TestOperationsDocQuotesAlerts: docs/operations.md shows alerts.yml as it
// is, byte for byte, in its yaml block that starts with "groups:".
func TestOperationsDocQuotesAlerts(t *testing.T) {
	doc, err := os.ReadFile("../../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile("alerts.yml")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```yaml\ngroups:\n")
	if !ok {
		t.Fatal("docs/operations.md has no ```yaml block starting with groups:")
	}
	block, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("docs/operations.md: the alerts block is not closed")
	}
	if got := "groups:\n" + block; got != string(file) {
		t.Errorf("docs/operations.md's alert rules differ from alerts.yml:\n--- doc\n%s--- alerts.yml\n%s", got, file)
	}
}
