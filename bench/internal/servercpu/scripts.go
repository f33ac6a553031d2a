package servercpu

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"
)

// ScriptStat is what the calls of one script cost the server: the calls,
// their µs as SLOWLOG timed them (the commands each ran inside included),
// and those commands by name.
type ScriptStat struct {
	Name        string
	Calls, Usec float64
	Inner       map[string]float64
	InnerCalls  float64
}

// slowlogMax is how many entries the server keeps while scripts are
// profiled: the phases measured run well under it.
const slowlogMax = 4_000_000

// StartScripts makes the server log every command in its SLOWLOG, so that
// Scripts can tell each script call's time and the commands it ran. Every
// command then costs the server a little more: profile a phase apart from
// the one whose CPU is measured. It returns a function that puts the
// settings back.
func StartScripts(ctx context.Context, rdb *redis.Client) (restore func(), err error) {
	old, err := rdb.ConfigGet(ctx, "slowlog-*").Result()
	if err != nil {
		return nil, err
	}
	if err := rdb.ConfigSet(ctx, "slowlog-max-len", fmt.Sprint(slowlogMax)).Err(); err != nil {
		return nil, err
	}
	if err := rdb.ConfigSet(ctx, "slowlog-log-slower-than", "0").Err(); err != nil {
		return nil, err
	}
	if err := rdb.SlowLogReset(ctx).Err(); err != nil {
		return nil, err
	}
	return func() {
		for k, v := range old {
			rdb.ConfigSet(context.WithoutCancel(ctx), k, v)
		}
	}, nil
}

// Scripts reads the SLOWLOG since StartScripts and returns its script
// calls (FCALL and EVALSHA) by function, the costliest first. A command
// logged before a script call is counted as that call's, as a script's
// commands are logged before the call that ran them; in a phase where
// clients also send commands of their own, those count too.
func Scripts(ctx context.Context, rdb *redis.Client) ([]ScriptStat, error) {
	logs, err := rdb.SlowLogGet(ctx, -1).Result()
	if err != nil {
		return nil, err
	}
	slices.SortFunc(logs, func(a, b redis.SlowLog) int { return cmp.Compare(a.ID, b.ID) })
	by := map[string]*ScriptStat{}
	var pending []string
	for _, l := range logs {
		if len(l.Args) == 0 {
			continue
		}
		cmd := strings.ToLower(l.Args[0])
		if (cmd != "fcall" && cmd != "evalsha" && cmd != "fcall_ro") || len(l.Args) < 2 {
			pending = append(pending, cmd)
			continue
		}
		name := l.Args[1]
		if cmd == "fcall" || cmd == "fcall_ro" {
			// hopper's functions are hopper_<hash>_<script>.
			if parts := strings.SplitN(name, "_", 3); len(parts) == 3 {
				name = parts[2]
			}
		}
		s := by[name]
		if s == nil {
			s = &ScriptStat{Name: name, Inner: map[string]float64{}}
			by[name] = s
		}
		s.Calls++
		s.Usec += float64(l.Duration.Microseconds())
		for _, c := range pending {
			s.Inner[c]++
			s.InnerCalls++
		}
		pending = pending[:0]
	}
	out := make([]ScriptStat, 0, len(by))
	for _, s := range by {
		out = append(out, *s)
	}
	slices.SortFunc(out, func(a, b ScriptStat) int { return cmp.Compare(b.Usec, a.Usec) })
	return out, nil
}

// ScriptsPerJob formats stats per job of n, one script a line: calls, µs,
// the commands it ran and the costliest of them by count.
func ScriptsPerJob(stats []ScriptStat, n int) string {
	var b strings.Builder
	for _, s := range stats {
		type kv struct {
			k string
			v float64
		}
		var inner []kv
		for k, v := range s.Inner {
			inner = append(inner, kv{k, v})
		}
		slices.SortFunc(inner, func(a, b kv) int { return cmp.Compare(b.v, a.v) })
		fmt.Fprintf(&b, "  %-22s %.3f calls %6.2f µs, %5.2f commands a job:", s.Name, s.Calls/float64(n), s.Usec/float64(n), s.InnerCalls/float64(n))
		for i, x := range inner {
			if i == 8 {
				break
			}
			fmt.Fprintf(&b, " %s %.2f", x.k, x.v/float64(n))
		}
		b.WriteString("\n")
	}
	return b.String()
}
