package redisstore

import (
	"strings"
	"testing"
)

// Known slots from the Redis Cluster specification and CLUSTER KEYSLOT.
func TestKeySlotKnownValues(t *testing.T) {
	for _, c := range []struct {
		key  string
		slot int
	}{
		{"foo", 12182},
		{"bar", 5061},
		{"hello", 866},
		{"{user1000}.following", keySlot("user1000")},
		{"foo{}{bar}", keySlot("foo{}{bar}")}, // empty tag: the whole key
		{"foo{{bar}}zap", keySlot("{bar")},
		{"foo{bar}{zap}", keySlot("bar")},
	} {
		if got := keySlot(c.key); got != c.slot {
			t.Errorf("keySlot(%q) = %d, want %d", c.key, got, c.slot)
		}
	}
	if keySlot("foo{}{bar}") == keySlot("bar") {
		t.Errorf("keySlot(%q) used the second tag; an empty first tag means the whole key", "foo{}{bar}")
	}
}

// hashTag returns the part of key Redis Cluster hashes.
func hashTag(key string) string {
	if s := strings.IndexByte(key, '{'); s >= 0 {
		if e := strings.IndexByte(key[s+1:], '}'); e > 0 {
			return key[s+1 : s+1+e]
		}
	}
	return key
}

// awkwardQueues are valid queue names that a careless key scheme would
// break or merge: separators of their own, names equal after replacing
// '.', '-' or '_' by one another, prefixes of each other, and the longest
// name allowed.
var awkwardQueues = []string{
	"a.b", "a-b", "a_b", "ab", "a", "a.", ".a", "x-y_z", "x_y-z", "x.y.z",
	"default", "default.", "j", "r", "p", "queues", "workers",
	strings.Repeat("q", 64), strings.Repeat("q", 63),
}

func TestQueueKeysShareOneTagPerQueue(t *testing.T) {
	tags := map[string]string{}
	for _, q := range awkwardQueues {
		k := newQueueKeys("hopper", q)
		want := "hopper:" + q
		for _, key := range k.all {
			if got := hashTag(key); got != want {
				t.Fatalf("queue %q: key %q has hash tag %q, want %q", q, key, got, want)
			}
		}
		if other, ok := tags[want]; ok {
			t.Fatalf("queues %q and %q share hash tag %q", q, other, want)
		}
		tags[want] = q
		seen := map[string]bool{}
		for _, key := range k.all {
			if seen[key] {
				t.Fatalf("queue %q: key %q twice in the layout", q, key)
			}
			seen[key] = true
		}
	}
}

func TestQueuesSpreadOverSlots(t *testing.T) {
	a, b := newQueueKeys("hopper", "emails"), newQueueKeys("hopper", "reports")
	if hashTag(a.jobs) == hashTag(b.jobs) {
		t.Fatalf("two queues share the hash tag %q", hashTag(a.jobs))
	}
	slots := map[int]bool{}
	for _, q := range awkwardQueues {
		slots[keySlot(newQueueKeys("hopper", q).jobs)] = true
	}
	if len(slots) < len(awkwardQueues)/2 {
		t.Fatalf("%d queues landed on only %d slots: the tag does not vary with the queue", len(awkwardQueues), len(slots))
	}
	g := newGlobalKeys("hopper")
	for _, key := range []string{g.queues, g.workers, g.schedules, g.worker("w1"), g.worker("w{x}")} {
		if hashTag(key) != "hopper" {
			t.Fatalf("store-wide key %q has hash tag %q, want hopper", key, hashTag(key))
		}
	}
	if keySlot(g.queues) == keySlot(a.jobs) && keySlot(g.queues) == keySlot(b.jobs) {
		t.Fatalf("store-wide keys share the slot of every queue")
	}
}

func TestValidatePrefix(t *testing.T) {
	for _, p := range []string{"hopper", "app1", "a.b-c_d", strings.Repeat("p", 64)} {
		if err := validatePrefix(p); err != nil {
			t.Errorf("validatePrefix(%q) = %v, want nil", p, err)
		}
	}
	for _, p := range []string{"a{b", "a}b", "a:b", "a b", "a\tb", "a\nb", strings.Repeat("p", 65)} {
		if err := validatePrefix(p); err == nil {
			t.Errorf("validatePrefix(%q) = nil, want an error", p)
		}
	}
}
