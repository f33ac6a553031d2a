package redisstore

import (
	"strconv"
	"strings"
)

// wfKeys returns the keys of workflow id, in the order the wf_*.lua
// scripts take them (lua/lib_wfgraph.lua): meta, states (with each task's
// dependents), remaining, infos, dependencies, payloads, results, being
// released. They share the hash tag {<prefix>:wf:<id>}; queue names hold no ':', so no
// queue's tag is ever a workflow's.
func (s *Store) wfKeys(id string) []string {
	tag := familyTag(s.opts.Prefix, famWorkflow, id)
	out := make([]string, 0, 8)
	for _, d := range keyTable {
		if d.fam == famWorkflow {
			out = append(out, tag+d.suffix)
		}
	}
	return out
}

// The workflow index, one slot {<prefix>:~wf} ('~' is in no queue name):
//
//	all        zset  workflow ID -> created ms
//	running, succeeded, failed, cancelled
//	           zset  workflow ID -> created ms, by state
//	exp        zset  ended workflow ID -> when its retention ends (ms)
//	ids        zset  workflow ID, score 0: lexical order, for ID prefix search
//	steps      zset  a step's mark, "<workflow ID>~<task>" -> when a sweeper
//	                 looks at the workflow: set while tasks the step left
//	                 are being enqueued, so a process that dies half way
//	                 is covered (workflow.go, chkMark)
//	chk        zset  workflow ID -> the same, an older release's marks
//
// A workflow's record says which state the index shows (meta "ist"): the
// process that changes the state writes the index, then "ist"; a process
// that dies between leaves the mismatch for the next one that touches the
// workflow, or the sweeper.
type wfIndex struct {
	all, running, succeeded, failed, cancelled, exp, ids, chk, steps string
	setKeys                                                          []string
}

func newWfIndex(prefix string) wfIndex {
	tag := "{" + prefix + ":~wf}:"
	x := wfIndex{all: tag + "all", running: tag + "running", succeeded: tag + "succeeded", failed: tag + "failed",
		cancelled: tag + "cancelled", exp: tag + "exp", ids: tag + "ids", chk: tag + "chk", steps: tag + "steps"}
	x.setKeys = []string{x.all, x.running, x.succeeded, x.failed, x.cancelled, x.exp, x.ids, x.chk}
	return x
}

// stateKey returns the index set of workflow state st.
func (x wfIndex) stateKey(st string) string {
	switch st {
	case "running":
		return x.running
	case "succeeded":
		return x.succeeded
	case "failed":
		return x.failed
	case "cancelled":
		return x.cancelled
	}
	return x.all
}

// taskInfo is a task's static info as lib_wfgraph.lua stores it.
func taskInfo(queue, kind string, allowFailure, anyOutcome bool, by string, order int) string {
	var b strings.Builder
	b.WriteString(queue)
	b.WriteByte('\n')
	b.WriteString(kind)
	b.WriteByte('\n')
	b.WriteString(flag(allowFailure))
	b.WriteByte('\n')
	b.WriteString(flag(anyOutcome))
	b.WriteByte('\n')
	b.WriteString(by)
	b.WriteByte('\n')
	b.WriteString(strconv.Itoa(order))
	return b.String()
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}
