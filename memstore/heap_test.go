package memstore

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkHeap fails unless h is a valid min-heap whose jobs know their index.
func checkHeap(t *testing.T, h jobHeap) {
	t.Helper()
	for i, j := range h {
		if j.idx != i {
			t.Fatalf("job at %d has idx %d", i, j.idx)
		}
		if i > 0 && before(j, h[(i-1)/2]) {
			t.Fatalf("job at %d sorts before its parent", i)
		}
	}
}

func TestJobHeapAgainstASortedModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var h jobHeap
	var model []*job
	seq := uint64(0)
	for range 5000 {
		switch op := r.IntN(10); {
		case op < 5 || len(model) == 0:
			seq++
			j := &job{at: r.Int64N(100), seq: seq}
			h.push(j)
			model = append(model, j)
		case op < 7: // remove any
			i := r.IntN(len(model))
			h.remove(model[i])
			if model[i].idx != -1 {
				t.Fatal("removed job keeps an index")
			}
			model = slices.Delete(model, i, i+1)
		case op < 9: // re-key any
			j := model[r.IntN(len(model))]
			j.at = r.Int64N(100)
			h.fix(j)
		default: // pop the earliest
			j := h.peek()
			min := slices.MinFunc(model, func(a, b *job) int {
				if before(a, b) {
					return -1
				}
				return 1
			})
			if j != min {
				t.Fatalf("peek gave at=%d seq=%d, want at=%d seq=%d", j.at, j.seq, min.at, min.seq)
			}
			h.remove(j)
			model = slices.DeleteFunc(model, func(x *job) bool { return x == j })
		}
		checkHeap(t, h)
		if len(h) != len(model) {
			t.Fatalf("heap has %d jobs, model %d", len(h), len(model))
		}
	}
}

func TestReadyListKeepsOrder(t *testing.T) {
	var l readyList
	js := make([]*job, 6)
	for i := range js {
		js[i] = &job{seq: uint64(i)}
	}
	l.pushBack(js[1])
	l.pushBack(js[2])
	l.pushFront(js[0])
	l.pushBack(js[3])
	l.remove(js[2])
	l.pushBack(js[4])
	l.remove(js[0])
	l.remove(js[4])
	l.pushFront(js[5])
	var got []uint64
	for j := l.head; j != nil; j = j.next {
		got = append(got, j.seq)
	}
	var back []uint64
	for j := l.tail; j != nil; j = j.prev {
		back = append(back, j.seq)
	}
	if want := []uint64{5, 1, 3}; !slices.Equal(got, want) || l.n != 3 {
		t.Fatalf("list %v (n=%d), want %v", got, l.n, want)
	}
	if want := []uint64{3, 1, 5}; !slices.Equal(back, want) {
		t.Fatalf("list backwards %v, want %v", back, want)
	}
	for _, want := range []uint64{5, 1, 3} {
		if j := l.popFront(); j == nil || j.seq != want {
			t.Fatalf("popFront gave %v, want seq %d", j, want)
		}
	}
	if l.popFront() != nil || l.head != nil || l.tail != nil || l.n != 0 {
		t.Fatal("list not empty after popping everything")
	}
}

func TestSmallestMatchesASort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 7, 100, 1000} {
		items := make([]*job, n)
		for i := range items {
			items[i] = &job{at: r.Int64N(50), seq: uint64(i)}
		}
		sorted := slices.Clone(items)
		slices.SortFunc(sorted, func(a, b *job) int {
			if before(a, b) {
				return -1
			}
			return 1
		})
		orig := slices.Clone(items)
		for _, k := range []int{1, 3, 10, 60, 2000} {
			got := smallest(items, k, before)
			want := sorted[:min(k, n)]
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d k=%d: wrong selection", n, k)
			}
			if !slices.Equal(items, orig) {
				t.Fatalf("n=%d k=%d: smallest changed its input", n, k)
			}
		}
	}
}
