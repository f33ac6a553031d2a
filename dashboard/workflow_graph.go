package dashboard

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// The workflow page draws a workflow's tasks and dependencies as an SVG
// laid out on the server, in layers: a task's column is its depth (the
// longest path from a task without dependencies), so every edge points
// right. Drawing stays readable for big workflows because it is capped:
// a column with more than graphMaxRows tasks shows the most telling ones
// (failed and enqueued first) and one "+k more" node for the rest, and a
// workflow deeper than graphMaxCols columns shows its first and last
// columns with the middle ones collapsed into a single node. Edges between
// the nodes drawn are merged, so a fan-in of 1,000 tasks is a dozen lines.
// The task table under the drawing always lists every task.

// Geometry of the drawing, in SVG user units (CSS pixels).
const (
	graphNodeW    = 176
	graphNodeH    = 40
	graphColGap   = 56
	graphRowGap   = 12
	graphMargin   = 12
	graphMaxRows  = 12   // nodes in one column, the "+k more" node included
	graphMaxCols  = 24   // columns, the collapsed middle included
	graphMaxEdges = 2000 // edges drawn; more are counted in EdgesDropped
	graphLabelLen = 22   // runes of a task name on its node
	graphSubLen   = 26   // runes of the second line of a node
)

// graphNode is one node of the drawing: a task, or a collapsed group.
type graphNode struct {
	X, Y  int
	Label string // first line: the task's name, or "+k more"
	Sub   string // second line: the task's kind, or what the group holds
	Title string // tooltip
	// Class is the node's CSS class: node-<task state>, or node-more.
	Class string
	Href  string // the task's job page, its table row, or the table
	Task  string // the task's name; "" for a collapsed group
	State hopper.TaskState
	count int // tasks the node stands for
}

// graphEdge is one line of the drawing, from a dependency to a dependent.
type graphEdge struct {
	D     string // SVG path data
	Class string // edge-<state of the dependency>, or edge-more
}

// graphView is what the "wf-graph" template draws.
type graphView struct {
	W, H         int // the SVG's size
	NodeW, NodeH int
	Nodes        []graphNode
	Edges        []graphEdge
	Depth        int // columns of the workflow, before collapsing
	Collapsed    int // tasks drawn only as part of a collapsed node
	EdgesDropped int // edges not drawn, over graphMaxEdges
}

// taskDepths returns each task's depth (0 for a task without
// dependencies, else one more than its deepest dependency) and how many
// columns that makes. Dependencies on unknown tasks are ignored; tasks in
// a cycle (which no store accepts) go in one more column after the last.
func taskDepths(tasks []store.TaskRecord, index map[string]int) (depth []int, cols int) {
	n := len(tasks)
	depth = make([]int, n)
	children := make([][]int, n)
	waiting := make([]int, n) // dependencies not yet placed
	var next []int
	for i, t := range tasks {
		for _, name := range t.Deps {
			if j, ok := index[name]; ok && j != i {
				children[j] = append(children[j], i)
				waiting[i]++
			}
		}
		if waiting[i] == 0 {
			next = append(next, i)
		}
	}
	placed := 0
	for len(next) > 0 {
		i := next[len(next)-1]
		next = next[:len(next)-1]
		placed++
		cols = max(cols, depth[i]+1)
		for _, c := range children[i] {
			depth[c] = max(depth[c], depth[i]+1)
			if waiting[c]--; waiting[c] == 0 {
				next = append(next, c)
			}
		}
	}
	if placed < n {
		for i := range tasks {
			if waiting[i] > 0 {
				depth[i] = cols
			}
		}
		cols++
	}
	return depth, cols
}

// visibility ranks task states for a crowded column: the tasks shown are
// those a person looks for first.
var visibility = map[hopper.TaskState]int{
	hopper.TaskFailed:    0,
	hopper.TaskEnqueued:  1,
	hopper.TaskCancelled: 2,
	hopper.TaskWaiting:   3,
	hopper.TaskSkipped:   4,
	hopper.TaskSucceeded: 5,
}

// layoutGraph lays out the drawing of rec's tasks. taskHref gives the
// link of a task's node.
func layoutGraph(rec *hopper.WorkflowRecord, depth []int, cols int, taskHref func(t *store.TaskRecord) string, tableHref string) *graphView {
	tasks := rec.Tasks
	g := &graphView{Depth: cols, NodeW: graphNodeW, NodeH: graphNodeH}
	if len(tasks) == 0 {
		return g
	}
	index := make(map[string]int, len(tasks))
	for i, t := range tasks {
		index[t.Name] = i
	}

	// Columns of the drawing: every depth, or the first and last ones with
	// the middle collapsed into one column.
	shown := cols
	head, gapCol := cols, -1
	if cols > graphMaxCols {
		shown = graphMaxCols
		head = graphMaxCols / 2
		gapCol = head
	}
	tail := shown - head - 1 // columns after the gap, when there is one
	colOf := func(dep int) int {
		switch {
		case dep < head:
			return dep
		case dep >= cols-tail:
			return shown - (cols - dep)
		}
		return gapCol
	}
	byCol := make([][]int, shown)
	for i := range tasks {
		c := colOf(depth[i])
		byCol[c] = append(byCol[c], i)
	}

	// Each column is centred vertically on the tallest: how many nodes
	// each holds is known before they are made.
	height := func(k int) int { return k*graphNodeH + max(k-1, 0)*graphRowGap }
	tallest := 0
	for c, members := range byCol {
		k := min(len(members), graphMaxRows)
		if c == gapCol {
			k = min(len(members), 1)
		}
		tallest = max(tallest, k)
	}
	// place appends node to column c at row r of k.
	place := func(node graphNode, c, r, k int) int {
		node.X = graphMargin + c*(graphNodeW+graphColGap)
		node.Y = graphMargin + (height(tallest)-height(k))/2 + r*(graphNodeH+graphRowGap)
		g.Nodes = append(g.Nodes, node)
		return len(g.Nodes) - 1
	}

	nodeOf := make([]int, len(tasks)) // the node each task is drawn as
	for c, members := range byCol {
		if len(members) == 0 {
			continue
		}
		if c == gapCol {
			n := place(moreNode(tasks, members, fmt.Sprintf("%s in %d columns", plural(len(members), "task", "tasks"), cols-head-tail), tableHref), c, 0, 1)
			for _, i := range members {
				nodeOf[i] = n
			}
			g.Collapsed += len(members)
			continue
		}
		// Order the column by where its tasks' dependencies are drawn
		// (their mean height), which keeps lines short and crossings few;
		// tasks without a dependency drawn to the left come first.
		key := make(map[int]float64, len(members))
		for pos, i := range members {
			sum, n := 0.0, 0
			for _, name := range tasks[i].Deps {
				if j, ok := index[name]; ok && colOf(depth[j]) < c {
					sum += float64(g.Nodes[nodeOf[j]].Y)
					n++
				}
			}
			if n > 0 {
				key[i] = sum / float64(n)
			} else {
				key[i] = float64(pos - len(members))
			}
		}
		slices.SortStableFunc(members, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
		visible, rest := members, []int(nil)
		if len(members) > graphMaxRows {
			ranked := slices.Clone(members)
			slices.SortStableFunc(ranked, func(a, b int) int {
				return cmp.Compare(visibility[tasks[a].State], visibility[tasks[b].State])
			})
			keep := make(map[int]bool, graphMaxRows-1)
			for _, i := range ranked[:graphMaxRows-1] {
				keep[i] = true
			}
			visible = visible[:0:0]
			for _, i := range members {
				if keep[i] {
					visible = append(visible, i)
				} else {
					rest = append(rest, i)
				}
			}
		}
		k := len(visible)
		if len(rest) > 0 {
			k++
		}
		for r, i := range visible {
			nodeOf[i] = place(taskNode(&tasks[i], taskHref(&tasks[i])), c, r, k)
		}
		if len(rest) > 0 {
			n := place(moreNode(tasks, rest, "", tableHref), c, len(visible), k)
			for _, i := range rest {
				nodeOf[i] = n
			}
			g.Collapsed += len(rest)
		}
	}
	g.W = 2*graphMargin + shown*graphNodeW + (shown-1)*graphColGap
	g.H = 2*graphMargin + height(tallest)

	// Edges between the nodes drawn, each once.
	type pair struct{ from, to int }
	seen := make(map[pair]bool)
	for i := range tasks {
		for _, name := range tasks[i].Deps {
			j, ok := index[name]
			if !ok {
				continue
			}
			p := pair{nodeOf[j], nodeOf[i]}
			if p.from == p.to || seen[p] {
				continue
			}
			seen[p] = true
			if len(g.Edges) >= graphMaxEdges {
				g.EdgesDropped++
				continue
			}
			g.Edges = append(g.Edges, edge(&g.Nodes[p.from], &g.Nodes[p.to]))
		}
	}
	return g
}

// taskNode is the node of one task.
func taskNode(t *store.TaskRecord, href string) graphNode {
	title := t.Name + " · " + string(t.State) + "\nkind " + t.Kind + " · queue " + t.Queue
	if len(t.Deps) > 0 {
		title += "\nafter " + truncate(strings.Join(t.Deps, ", "), 200)
	}
	return graphNode{
		Label: truncate(t.Name, graphLabelLen),
		Sub:   truncate(t.Kind, graphSubLen),
		Title: title,
		Class: "node-" + string(t.State),
		Href:  href,
		Task:  t.Name,
		State: t.State,
		count: 1,
	}
}

// moreNode is the node standing for several tasks (members), which the
// table lists; what says what they are when it is not "+k more".
func moreNode(tasks []store.TaskRecord, members []int, what, tableHref string) graphNode {
	counts := map[hopper.TaskState]int{}
	for _, i := range members {
		counts[tasks[i].State]++
	}
	var parts []string
	for _, st := range taskStates {
		if n := counts[st]; n > 0 {
			parts = append(parts, formatCount(int64(n))+" "+string(st))
		}
	}
	label := "+" + formatCount(int64(len(members))) + " more"
	if what != "" {
		label = "… " + formatCount(int64(len(members))) + " tasks"
	} else {
		what = plural(len(members), "more task", "more tasks")
	}
	return graphNode{
		Label: label,
		Sub:   truncate(strings.Join(parts, " · "), graphSubLen),
		Title: what + ": " + strings.Join(parts, ", ") + " (listed in the table below)",
		Class: "node-more",
		Href:  tableHref,
		count: len(members),
	}
}

// edge is the line from a's right side to b's left side: a horizontal
// S-curve.
func edge(a, b *graphNode) graphEdge {
	x1, y1 := a.X+graphNodeW, a.Y+graphNodeH/2
	x2, y2 := b.X, b.Y+graphNodeH/2
	dx := max((x2-x1)/2, 16)
	class := "edge-more"
	if a.Task != "" {
		class = "edge-" + string(a.State)
	}
	d := fmt.Sprintf("M %d %d C %d %d, %d %d, %d %d", x1, y1, x1+dx, y1, x2-dx, y2, x2, y2)
	return graphEdge{D: d, Class: class}
}

// plural writes n and the word for it: "1 task", "12 tasks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return formatCount(int64(n)) + " " + many
}
