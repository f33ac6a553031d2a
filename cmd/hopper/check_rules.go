package main

import (
	"fmt"
	"strings"
	"time"
)

// verdict is how one line of "hopper check" judges what it measured.
type verdict int

const (
	vOK verdict = iota
	vWarn
	vFail
)

func (v verdict) String() string { return [...]string{"ok", "warn", "FAIL"}[v] }

// checkLine is one line of the report: what was checked, what was
// measured and, for warn and FAIL, why it matters and what to set.
type checkLine struct {
	v           verdict
	name, value string
	why         string
}

func ok(name, value string) checkLine { return checkLine{vOK, name, value, ""} }

// Thresholds of "hopper check" (also in checkUsage and
// docs/production-checklist.md).
const (
	skewWarn       = 500 * time.Millisecond
	skewFail       = 2 * time.Second
	latencyWarn    = 5 * time.Millisecond
	headroomWarn   = 0.20
	headroomFail   = 0.05
	bytesPerJobDef = 220 // bench figure for a pending job (redisstore doc)
)

// nodeReading is what was read from one master.
type nodeReading struct {
	addr, role string
	version    string
	major      int
	minor      int
	cluster    bool
	// config is CONFIG GET's answers (maxmemory-policy, appendonly,
	// appendfsync, save, cluster-require-full-coverage); configErr why
	// it could not be read (INFO's fields are used instead).
	config    map[string]string
	configErr error
	aofOn     bool // INFO persistence aof_enabled
	policy    string
	replicas  []string // "addr state lag"
	waitErr   error
	skew      time.Duration
	skewPlus  time.Duration // the measure's uncertainty, half a round trip
	skewErr   error
	latency   time.Duration
	used, max int64
}

// nodeLines judges one master; replicasWanted is --replicas.
func nodeLines(r nodeReading, replicasWanted int) []checkLine {
	var out []checkLine
	switch {
	case r.version == "":
		out = append(out, checkLine{vWarn, "version", "unknown (INFO refused)", "hopper needs Redis 7.0 or newer; grant +info to check"})
	case r.major < 7:
		out = append(out, checkLine{vFail, "version", r.version, "hopper needs Redis 7.0 or newer (functions, LPOP with a count, ZMSCORE); upgrade Redis"})
	default:
		out = append(out, ok("version", r.version))
	}
	out = append(out, policyLine(r), persistenceLine(r))
	if r.cluster {
		switch fc := r.config["cluster-require-full-coverage"]; fc {
		case "no":
			out = append(out, ok("cluster-require-full-coverage", "no"))
		case "":
			out = append(out, checkLine{vWarn, "cluster-require-full-coverage", "unknown (CONFIG GET refused)", "with yes, one master down stops every queue; set it to no"})
		default:
			out = append(out, checkLine{vWarn, "cluster-require-full-coverage", fc, "one master down makes every master refuse (CLUSTERDOWN), so every queue stops, not only its own; set cluster-require-full-coverage no"})
		}
	}
	out = append(out, replicaLines(r, replicasWanted)...)
	out = append(out, skewLine(r), latencyLine(r), memoryLine(r))
	return out
}

func policyLine(r nodeReading) checkLine {
	p := r.policy
	if v, found := r.config["maxmemory-policy"]; found {
		p = v
	}
	switch p {
	case "noeviction":
		return ok("maxmemory-policy", p)
	case "":
		return checkLine{vWarn, "maxmemory-policy", "unknown (INFO and CONFIG GET refused)", "it must be noeviction; grant +info to check"}
	}
	return checkLine{vFail, "maxmemory-policy", p, "an evicted key loses jobs; set maxmemory-policy noeviction"}
}

func persistenceLine(r nodeReading) checkLine {
	aof := r.aofOn
	if v, found := r.config["appendonly"]; found {
		aof = v == "yes"
	}
	save, saveKnown := r.config["save"]
	fsync := r.config["appendfsync"]
	switch {
	case aof && fsync == "no":
		return checkLine{vWarn, "persistence", "AOF, appendfsync no", "the OS flushes the AOF when it likes (about every 30 s): a power loss loses the jobs written since; set appendfsync everysec"}
	case aof && fsync == "":
		return checkLine{vOK, "persistence", "AOF (appendfsync unknown: CONFIG GET refused)", ""}
	case aof:
		return ok("persistence", "AOF, appendfsync "+fsync)
	case !saveKnown:
		return checkLine{vWarn, "persistence", "no AOF; RDB save points unknown (CONFIG GET refused)", "without AOF a restart loses the jobs written since the last snapshot, or all of them; set appendonly yes"}
	case strings.TrimSpace(save) == "":
		return checkLine{vFail, "persistence", "none (appendonly no, no save points)", "a restart loses every job; set appendonly yes and appendfsync everysec"}
	}
	return checkLine{vWarn, "persistence", "RDB only (save " + save + ")", "a restart loses the jobs written since the last snapshot (up to the save interval); set appendonly yes and appendfsync everysec"}
}

func replicaLines(r nodeReading, wanted int) []checkLine {
	var out []checkLine
	n := len(r.replicas)
	val := fmt.Sprintf("%d", n)
	if n > 0 {
		val += " (" + strings.Join(r.replicas, ", ") + ")"
	}
	switch {
	case n < wanted:
		out = append(out, checkLine{vFail, "replicas", val, fmt.Sprintf("--replicas %d: Enqueue and Finish with Config.Replicas = %d fail with ErrNotReplicated; add replicas", wanted, wanted)})
	case n == 0:
		out = append(out, checkLine{vWarn, "replicas", val, "no failover: if this server dies its queues stop, and its disk alone keeps the jobs; add a replica (Sentinel or Cluster)"})
	case wanted > 0 && n == wanted:
		out = append(out, checkLine{vWarn, "replicas", val, fmt.Sprintf("exactly --replicas %d: after a failover the promoted replica has %d, so Enqueue and Finish fail with ErrNotReplicated until the old master rejoins; give each master %d", wanted, wanted-1, wanted+1)})
	default:
		out = append(out, ok("replicas", val))
	}
	switch {
	case r.waitErr == nil:
		out = append(out, ok("WAIT", "answers"))
	case wanted > 0:
		out = append(out, checkLine{vFail, "WAIT", r.waitErr.Error(), "Config.Replicas waits with WAIT: every Enqueue and Finish would fail; grant +wait or use a server that has WAIT"})
	default:
		out = append(out, checkLine{vWarn, "WAIT", r.waitErr.Error(), "Config.Replicas (waiting for replicas) cannot be used; grant +wait or use a server that has WAIT"})
	}
	return out
}

func skewLine(r nodeReading) checkLine {
	if r.skewErr != nil {
		return checkLine{vWarn, "clock skew", "unknown: " + r.skewErr.Error(), "grant +time to measure it"}
	}
	val := fmt.Sprintf("%+.2f ms (±%.2f ms; + means the server is ahead)", ms(r.skew), ms(r.skewPlus))
	abs := r.skew.Abs()
	why := "due times and leases use the server's clock, so no job runs early or is stolen; but RunAt and periodic ticks computed here, IDs' order and the dashboard's ages are off by the skew, and a skew this large means clock sync (NTP) is broken and will drift further; fix time sync on this host or the server"
	switch {
	case abs > skewFail:
		return checkLine{vFail, "clock skew", val, why}
	case abs > skewWarn:
		return checkLine{vWarn, "clock skew", val, why}
	}
	return ok("clock skew", val)
}

func latencyLine(r nodeReading) checkLine {
	val := fmt.Sprintf("%.2f ms (median of 20 PINGs)", ms(r.latency))
	if r.latency > latencyWarn {
		return checkLine{vWarn, "latency", val, "every claim, ack and lease renewal is a round trip: a job's start and a worker's throughput pay for it; run the workers near Redis"}
	}
	return ok("latency", val)
}

func memoryLine(r nodeReading) checkLine {
	if r.max == 0 {
		return checkLine{vWarn, "memory", fmt.Sprintf("maxmemory 0 (unbounded), used %s", bytesStr(r.used)), "Redis grows until the OS kills it and every job since the last save is lost; set maxmemory (with maxmemory-policy noeviction, enqueues then fail with OOM instead)"}
	}
	free := 1 - float64(r.used)/float64(r.max)
	val := fmt.Sprintf("%.0f%% free: used %s of maxmemory %s", 100*free, bytesStr(r.used), bytesStr(r.max))
	why := "at maxmemory enqueues (and schedules' ticks) fail up front with OOM, while workers keep claiming and acking, so the queues drain; raise maxmemory or drain the backlog"
	switch {
	case free < headroomFail:
		return checkLine{vFail, "memory", val, why}
	case free < headroomWarn:
		return checkLine{vWarn, "memory", val, why}
	}
	return ok("memory", val)
}

// backlogLine reports the jobs stored and whether the masters' free
// memory (freeBytes; -1 when one has no maxmemory) could hold as much
// again.
func backlogLine(jobs int64, perJob float64, measured bool, freeBytes int64) checkLine {
	how := "the redisstore estimate"
	if measured {
		how = "measured with MEMORY USAGE"
	}
	val := fmt.Sprintf("%d jobs in all states, about %s (%.0f B a job, %s)", jobs, bytesStr(int64(float64(jobs)*perJob)), perJob, how)
	if freeBytes >= 0 && float64(freeBytes) < float64(jobs)*perJob {
		return checkLine{vWarn, "backlog", val + fmt.Sprintf("; %s free", bytesStr(freeBytes)), "the free memory could not hold the backlog again: a stall of the workers as long as the one that built it fills Redis; raise maxmemory"}
	}
	return ok("backlog", val)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// bytesStr prints a byte count in B, KB, MB or GB (powers of 1024).
func bytesStr(n int64) string {
	f, units := float64(n), []string{"B", "KB", "MB", "GB", "TB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
