package main

import (
	"maps"
	"math"
	"testing"
)

// infoText is INFO output as Redis 7 sends it, CRLF line ends included.
const infoText = "# CPU\r\nused_cpu_sys:1.250000\r\nused_cpu_user:2.500000\r\n\r\n" +
	"# Memory\r\nused_memory:1048576\r\nused_memory_human:1.00M\r\n" +
	"# Commandstats\r\n" +
	"cmdstat_evalsha:calls=10,usec=100,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_client|setinfo:calls=2,usec=1,usec_per_call=0.50,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_info:calls=4,usec=40,usec_per_call=10.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_config|resetstat:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=0\r\n" +
	"cmdstat_get:usec=3,calls=7\r\n" +
	"cmdstat_broken:calls=x\r\n"

// TestParseInfo checks that fields are read and headers skipped.
func TestParseInfo(t *testing.T) {
	f := parseInfo(infoText)
	tests := []struct{ key, want string }{
		{"used_cpu_sys", "1.250000"},
		{"used_cpu_user", "2.500000"},
		{"used_memory", "1048576"},
		{"used_memory_human", "1.00M"},
		{"cmdstat_get", "usec=3,calls=7"},
		{"# CPU", ""},
	}
	for _, tt := range tests {
		if got := f[tt.key]; got != tt.want {
			t.Errorf("%q = %q, want %q", tt.key, got, tt.want)
		}
	}
	if len(parseInfo("")) != 0 {
		t.Error("empty INFO gave fields")
	}
}

// TestParseCommandStats checks the calls of every command, in any field
// order, with unparsable ones skipped.
func TestParseCommandStats(t *testing.T) {
	got := parseCommandStats(parseInfo(infoText))
	want := map[string]int64{"evalsha": 10, "client|setinfo": 2, "info": 4, "config|resetstat": 1, "get": 7}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestCommandDelta checks the difference between snapshots and that the
// harness's own commands are left out.
func TestCommandDelta(t *testing.T) {
	before := infoSnapshot{calls: map[string]int64{"evalsha": 4, "info": 1, "get": 7}}
	after := infoSnapshot{calls: parseCommandStats(parseInfo(infoText))}
	got := commandDelta(before, after)
	want := map[string]int64{"evalsha": 6, "client|setinfo": 2}
	if !maps.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestHarnessCommand checks which commands count as the benchmark's own.
func TestHarnessCommand(t *testing.T) {
	tests := []struct {
		name string
		want bool
	}{
		{"info", true}, {"config|resetstat", true}, {"config|get", true},
		{"evalsha", false}, {"client|setinfo", false}, {"infox", false},
	}
	for _, tt := range tests {
		if got := harnessCommand(tt.name); got != tt.want {
			t.Errorf("harnessCommand(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSnapshotNumber checks numeric field access and the CPU delta.
func TestSnapshotNumber(t *testing.T) {
	after := infoSnapshot{fields: parseInfo(infoText)}
	before := infoSnapshot{fields: map[string]string{"used_cpu_sys": "1", "used_cpu_user": "2"}}
	if got := delta(before, after, "used_cpu_sys") + delta(before, after, "used_cpu_user"); got != 0.75 {
		t.Errorf("CPU delta = %v, want 0.75", got)
	}
	if got := after.number("used_memory_human"); !math.IsNaN(got) {
		t.Errorf("non-numeric field = %v, want NaN", got)
	}
	if got := after.number("missing"); !math.IsNaN(got) {
		t.Errorf("missing field = %v, want NaN", got)
	}
}
