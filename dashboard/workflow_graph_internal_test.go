package dashboard

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// record builds a workflow record from "name:dep,dep" specs, every task
// in state st.
func record(st hopper.TaskState, specs ...string) *hopper.WorkflowRecord {
	rec := &hopper.WorkflowRecord{ID: "wf"}
	for _, s := range specs {
		name, deps, _ := strings.Cut(s, ":")
		t := store.TaskRecord{Name: name, State: st, Queue: "q", Kind: "k", JobID: "wf~" + name}
		if deps != "" {
			t.Deps = strings.Split(deps, ",")
		}
		rec.Tasks = append(rec.Tasks, t)
	}
	return rec
}

func layoutOf(rec *hopper.WorkflowRecord) (*graphView, []int) {
	l := newTaskLayout(rec.Tasks)
	href := func(t *store.TaskRecord) string { return "#" + t.Name }
	return layoutGraph(rec, l.depth, l.cols, href, "#tasks"), l.depth
}

func TestTaskDepthIsLongestPath(t *testing.T) {
	// a → b → c, and a → c: c is at depth 2, not 1.
	rec := record(hopper.TaskWaiting, "c:a,b", "b:a", "a")
	g, depth := layoutOf(rec)
	if fmt.Sprint(depth) != "[2 1 0]" || g.Depth != 3 {
		t.Errorf("depths %v, columns %d; want [2 1 0] and 3", depth, g.Depth)
	}
	x := map[string]int{}
	for _, n := range g.Nodes {
		x[n.Task] = n.X
	}
	if !(x["a"] < x["b"] && x["b"] < x["c"]) {
		t.Errorf("x positions %v", x)
	}
	if len(g.Edges) != 3 {
		t.Errorf("%d edges, want 3", len(g.Edges))
	}
}

// A record no store would hold (a cycle, unknown and self dependencies,
// duplicates) is drawn without a panic or a loop.
func TestLayoutOddRecords(t *testing.T) {
	for name, rec := range map[string]*hopper.WorkflowRecord{
		"cycle":        record(hopper.TaskWaiting, "a:b", "b:a", "c"),
		"self":         record(hopper.TaskWaiting, "a:a"),
		"unknown deps": record(hopper.TaskWaiting, "a:nope,other", "b:a,a,a"),
		"empty":        {ID: "wf"},
	} {
		t.Run(name, func(t *testing.T) {
			g, _ := layoutOf(rec)
			if len(g.Nodes) != len(rec.Tasks) {
				t.Errorf("%d nodes for %d tasks", len(g.Nodes), len(rec.Tasks))
			}
			for _, n := range g.Nodes {
				if n.X < 0 || n.Y < 0 || n.X+graphNodeW > g.W || n.Y+graphNodeH > g.H {
					t.Errorf("node %+v outside the %dx%d drawing", n, g.W, g.H)
				}
			}
		})
	}
}

// The drawing is bounded whatever the shape: at most graphMaxRows nodes
// a column, graphMaxCols columns and graphMaxEdges edges.
func TestLayoutBounded(t *testing.T) {
	// 60 layers of 50 tasks, each depending on every task of the layer
	// before: 3,000 tasks, 122,500 dependencies.
	var specs []string
	for l := range 60 {
		for i := range 50 {
			var deps []string
			if l > 0 {
				for j := range 50 {
					deps = append(deps, fmt.Sprintf("t%d-%d", l-1, j))
				}
			}
			specs = append(specs, fmt.Sprintf("t%d-%d:%s", l, i, strings.Join(deps, ",")))
		}
	}
	g, _ := layoutOf(record(hopper.TaskSucceeded, specs...))
	if max := (graphMaxCols-1)*graphMaxRows + 1; len(g.Nodes) > max {
		t.Errorf("%d nodes, want at most %d", len(g.Nodes), max)
	}
	if g.W > 2*graphMargin+graphMaxCols*(graphNodeW+graphColGap) || g.H > 2*graphMargin+graphMaxRows*(graphNodeH+graphRowGap) {
		t.Errorf("drawing %dx%d", g.W, g.H)
	}
	if len(g.Edges) > graphMaxEdges {
		t.Errorf("%d edges", len(g.Edges))
	}
	if g.Collapsed == 0 || g.Depth != 60 {
		t.Errorf("collapsed %d, depth %d", g.Collapsed, g.Depth)
	}
	covered := 0
	for _, n := range g.Nodes {
		covered += n.count
	}
	if covered != 3000 {
		t.Errorf("the nodes stand for %d tasks, want 3,000", covered)
	}
}

func FuzzLayoutGraph(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 3, 0, 2})
	f.Add([]byte{5, 5, 5, 5, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		// Byte pairs: a task, and the task it depends on (by index).
		n := min(len(b), 200)
		rec := &hopper.WorkflowRecord{ID: "wf"}
		for i := range n {
			rec.Tasks = append(rec.Tasks, store.TaskRecord{Name: fmt.Sprint("t", i), State: taskStates[int(b[i])%len(taskStates)]})
		}
		for i := 0; i+1 < len(b) && n > 0; i += 2 {
			from, to := int(b[i])%n, int(b[i+1])%n
			rec.Tasks[from].Deps = append(rec.Tasks[from].Deps, fmt.Sprint("t", to))
		}
		g, _ := layoutOf(rec)
		covered := 0
		for _, node := range g.Nodes {
			covered += node.count
		}
		if covered != n {
			t.Fatalf("the nodes stand for %d tasks, want %d", covered, n)
		}
	})
}
