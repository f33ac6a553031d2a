package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCheckRules: the thresholds of each line, on readings made up.
func TestCheckRules(t *testing.T) {
	good := func() nodeReading {
		return nodeReading{version: "7.2.4", major: 7, minor: 2, policy: "noeviction",
			config:   map[string]string{"maxmemory-policy": "noeviction", "appendonly": "yes", "appendfsync": "everysec", "save": ""},
			replicas: []string{"r:1 online, lag 0 s"}, latency: time.Millisecond, used: 10, max: 100}
	}
	for _, c := range []struct {
		name   string
		change func(*nodeReading)
		line   string
		want   verdict
	}{
		{"good", func(*nodeReading) {}, "persistence", vOK},
		{"redis 6", func(r *nodeReading) { r.version, r.major = "6.2.14", 6 }, "version", vFail},
		{"lru", func(r *nodeReading) { r.config["maxmemory-policy"] = "allkeys-lru" }, "maxmemory-policy", vFail},
		{"policy from INFO when CONFIG is refused", func(r *nodeReading) { r.config, r.policy = nil, "volatile-lru" }, "maxmemory-policy", vFail},
		{"no persistence", func(r *nodeReading) { r.config["appendonly"] = "no" }, "persistence", vFail},
		{"RDB only", func(r *nodeReading) { r.config["appendonly"], r.config["save"] = "no", "3600 1" }, "persistence", vWarn},
		{"fsync no", func(r *nodeReading) { r.config["appendfsync"] = "no" }, "persistence", vWarn},
		{"full coverage", func(r *nodeReading) { r.cluster, r.config["cluster-require-full-coverage"] = true, "yes" }, "cluster-require-full-coverage", vWarn},
		{"partial coverage", func(r *nodeReading) { r.cluster, r.config["cluster-require-full-coverage"] = true, "no" }, "cluster-require-full-coverage", vOK},
		{"no replica", func(r *nodeReading) { r.replicas = nil }, "replicas", vWarn},
		{"no WAIT", func(r *nodeReading) { r.waitErr = errors.New("NOPERM") }, "WAIT", vWarn},
		{"skew 499 ms", func(r *nodeReading) { r.skew = -499 * time.Millisecond }, "clock skew", vOK},
		{"skew 501 ms", func(r *nodeReading) { r.skew = -501 * time.Millisecond }, "clock skew", vWarn},
		{"skew 2.1 s", func(r *nodeReading) { r.skew = 2100 * time.Millisecond }, "clock skew", vFail},
		{"latency 6 ms", func(r *nodeReading) { r.latency = 6 * time.Millisecond }, "latency", vWarn},
		{"unbounded", func(r *nodeReading) { r.max = 0 }, "memory", vWarn},
		{"81% used", func(r *nodeReading) { r.used = 81 }, "memory", vWarn},
		{"96% used", func(r *nodeReading) { r.used = 96 }, "memory", vFail},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := good()
			c.change(&r)
			for _, l := range nodeLines(r, 0) {
				if l.name == c.line {
					if l.v != c.want {
						t.Fatalf("%s: %v (%s), want %v", l.name, l.v, l.value, c.want)
					}
					if l.v != vOK && l.why == "" {
						t.Fatalf("%s: %v without a why", l.name, l.v)
					}
					return
				}
			}
			t.Fatalf("no %s line", c.line)
		})
	}
	// The memory line says what fails at maxmemory (enqueues) and what
	// still works (the workers' claims and acks: docs/operations.md); it
	// said workers could not record outcomes.
	r := good()
	r.used = 96
	for _, l := range nodeLines(r, 0) {
		if l.name != "memory" {
			continue
		}
		for _, want := range []string{"enqueues", "fail", "workers keep claiming and acking"} {
			if !strings.Contains(l.why, want) {
				t.Errorf("memory line at 96%% used says %q, want it to say %q", l.why, want)
			}
		}
		if strings.Contains(l.why, "cannot record outcomes") {
			t.Errorf("memory line says %q: workers do record outcomes at maxmemory", l.why)
		}
	}
	r = good()
	r.replicas = nil
	for _, l := range nodeLines(r, 1) {
		if l.name == "replicas" && l.v != vFail {
			t.Errorf("--replicas 1 and none: %v", l.v)
		}
	}
	// Exactly as many as waited for: a failover leaves one fewer, and
	// the shard refuses writes until the old master rejoins.
	r = good()
	for wanted, want := range map[int]verdict{1: vWarn, 0: vOK} {
		for _, l := range nodeLines(r, wanted) {
			if l.name == "replicas" && (l.v != want || (want == vWarn && !strings.Contains(l.why, "give each master 2"))) {
				t.Errorf("--replicas %d with one replica: %v (%s)", wanted, l.v, l.why)
			}
		}
	}
	r.replicas = append(r.replicas, "r2:1 online, lag 0 s")
	for _, l := range nodeLines(r, 1) {
		if l.name == "replicas" && l.v != vOK {
			t.Errorf("--replicas 1 with two replicas: %v", l.v)
		}
	}
	if l := backlogLine(1000, 220, false, 100_000); l.v != vWarn {
		t.Errorf("backlog of 220 KB with 100 KB free: %v", l.v)
	}
	if l := backlogLine(1000, 220, true, -1); l.v != vOK {
		t.Errorf("backlog without maxmemory: %v (the memory line warns)", l.v)
	}
}
