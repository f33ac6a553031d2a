package redisstore

import (
	"strings"
	"sync"
)

// shape is what a queue uses beyond the plain path, which decides the
// variant of its hot scripts (lua.go): a set of letters, kept by the
// scripts in the queue's marks hash (field sh) in the order of
// shapeLetters. A plain queue's shape is empty, and its scripts carry no
// code of the others.
type shape uint8

const (
	shapePrio   shape = 1 << iota // P: a job with a priority other than 0 was stored
	shapeGroups                   // G: a grouped job was stored: claims rotate over groups
	shapeLimits                   // L: QueueConfig.MaxRunning or RateLimit is set
	shapeKinds                    // K: QueueConfig.KindIndex is set
	shapeAll    = shapePrio | shapeGroups | shapeLimits | shapeKinds
)

const shapeLetters = "PGLK"

// String returns the shape's letters, "" for a plain queue.
func (s shape) String() string {
	var b [4]byte
	n := 0
	for i := range len(shapeLetters) {
		if s&(1<<i) != 0 {
			b[n] = shapeLetters[i]
			n++
		}
	}
	return string(b[:n])
}

// parseShape reads the letters String writes (unknown ones are ignored:
// a newer version's).
func parseShape(str string) shape {
	var s shape
	for i := range len(str) {
		if j := strings.IndexByte(shapeLetters, str[i]); j >= 0 {
			s |= 1 << j
		}
	}
	return s
}

// slotsOf returns the slot choices (lua.go) that serve shape s.
func (s shape) slots() map[string]string {
	m := map[string]string{}
	switch {
	case s&shapeGroups != 0:
		m["ready"] = "group"
	case s&shapePrio != 0:
		m["ready"] = "prio"
	}
	if s&shapeLimits != 0 {
		m["limits"] = "on"
	}
	if s&shapeKinds != 0 {
		m["kidx"] = "on"
	}
	return m
}

// shapeOfSlot is what each slot's files serve, for the letters a script's
// shape check looks at: a script refuses a queue whose shape holds a
// letter of the slots it includes that its variant does not serve.
var shapeOfSlot = map[string]shape{
	"ready":  shapePrio | shapeGroups,
	"limits": shapeLimits,
	"kidx":   shapeKinds,
}

// shapeCache is what a Store knows of its queues' shapes: learnt from the
// scripts that refused a call (a queue grew a feature), and from
// SetQueueConfig in this process. A shape only grows but for limits and
// the kind index, which SetQueueConfig may take away: a process that did
// not make that change keeps the larger variant, which serves the smaller
// shape too.
type shapeCache struct {
	m sync.Map // queue -> shape
}

func (c *shapeCache) get(queue string) shape {
	if v, ok := c.m.Load(queue); ok {
		return v.(shape)
	}
	return 0
}

func (c *shapeCache) set(queue string, s shape) { c.m.Store(queue, s) }
