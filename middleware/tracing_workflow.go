package middleware

import (
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
	"go.opentelemetry.io/otel/trace"
)

// linkDependencies writes, into each workflow task of jobs that names its
// dependencies (store.MetaDeps), the creation span contexts of those of
// them enqueued in the same batch (store.MetaLinks); creates holds the
// jobs' creation spans. A task's process span then links to its
// dependencies' creation spans, the parents of their process spans: the
// whole workflow is one trace, its edges visible as links.
func linkDependencies(jobs []*hopper.PreparedJob, creates []trace.Span) {
	byTask := make(map[string]trace.SpanContext, len(jobs))
	for i, j := range jobs {
		if creates[i] != nil && j.Meta()[store.MetaTask] != "" {
			byTask[j.Meta()[store.MetaTask]] = creates[i].SpanContext()
		}
	}
	if len(byTask) == 0 {
		return
	}
	for _, j := range jobs {
		deps := j.Meta()[store.MetaDeps]
		if deps == "" {
			continue
		}
		var b strings.Builder
		for d := range strings.SplitSeq(deps, ",") {
			if sc, ok := byTask[d]; ok {
				if b.Len() > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(sc.TraceID().String() + "-" + sc.SpanID().String())
			}
		}
		if b.Len() > 0 {
			j.Meta()[store.MetaLinks] = b.String()
		}
	}
}

// dependencyLinks returns the links a task's process span makes to its
// dependencies' creation spans (store.MetaLinks).
func dependencyLinks(meta map[string]string) []trace.Link {
	v := meta[store.MetaLinks]
	if v == "" {
		return nil
	}
	var links []trace.Link
	for l := range strings.FieldsSeq(v) {
		tid, sid, ok := strings.Cut(l, "-")
		if !ok {
			continue
		}
		t, err1 := trace.TraceIDFromHex(tid)
		s, err2 := trace.SpanIDFromHex(sid)
		if err1 != nil || err2 != nil {
			continue
		}
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled, Remote: true})
		links = append(links, trace.Link{SpanContext: sc, Attributes: nil})
	}
	return links
}
