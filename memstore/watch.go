package memstore

import (
	"context"
	"slices"
	"sync"
)

// watch is one WatchJob or WatchWorkflow call waiting for its end, of type
// E. Its fields are guarded by the mutex of the watchers it is in.
type watch[E any] struct {
	ch   chan E // one slot: it receives once
	done bool
	stop func() bool // unregisters the context's callback
}

// send delivers the watch's end once.
func (w *watch[E]) send(end E) {
	if w.done {
		return
	}
	w.done = true
	w.ch <- end
	close(w.ch)
	if w.stop != nil {
		w.stop()
	}
}

// watchers are the watches waiting, by job or workflow ID. The zero value
// is ready to use. Its owner's mutex guards it and its watches.
type watchers[E any] map[string][]*watch[E]

// alreadyEnded returns a channel that holds end: the watch of something that
// had ended already.
func alreadyEnded[E any](end E) <-chan E {
	w := &watch[E]{ch: make(chan E, 1)}
	w.send(end)
	return w.ch
}

// add registers a watch of id and returns its channel. When ctx ends
// first, the watch leaves ws and receives cancelled(ctx.Err()). mu, the
// owner's mutex, must be held; the callback takes it.
func (ws *watchers[E]) add(ctx context.Context, mu sync.Locker, id string, cancelled func(error) E) <-chan E {
	w := &watch[E]{ch: make(chan E, 1)}
	if *ws == nil {
		*ws = make(watchers[E])
	}
	(*ws)[id] = append((*ws)[id], w)
	w.stop = context.AfterFunc(ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		if rest := slices.DeleteFunc((*ws)[id], func(x *watch[E]) bool { return x == w }); len(rest) > 0 {
			(*ws)[id] = rest
		} else {
			delete(*ws, id)
		}
		w.send(cancelled(ctx.Err()))
	})
	return w.ch
}

// end hands each watch of id its own end and forgets them. The owner's
// mutex must be held.
func (ws watchers[E]) end(id string, end func() E) {
	list, ok := ws[id]
	if !ok {
		return
	}
	delete(ws, id)
	for _, w := range list {
		w.send(end())
	}
}
