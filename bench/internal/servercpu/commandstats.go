package servercpu

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"
)

// CommandStat is one command's line of INFO commandstats.
type CommandStat struct {
	Command     string
	Calls, Usec float64
}

// CommandStats returns the server's INFO commandstats (since its last
// CONFIG RESETSTAT), the costliest command first.
func CommandStats(ctx context.Context, rdb *redis.Client) ([]CommandStat, error) {
	info, err := rdb.Info(ctx, "commandstats").Result()
	if err != nil {
		return nil, err
	}
	var stats []CommandStat
	for _, line := range strings.Split(info, "\r\n") {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		s := CommandStat{Command: strings.TrimPrefix(name, "cmdstat_")}
		for _, kv := range strings.Split(rest, ",") {
			k, v, _ := strings.Cut(kv, "=")
			f, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "calls":
				s.Calls = f
			case "usec":
				s.Usec = f
			}
		}
		stats = append(stats, s)
	}
	slices.SortFunc(stats, func(a, b CommandStat) int { return cmp.Compare(b.Usec, a.Usec) })
	return stats, nil
}

// PerJob formats the top costliest commands of stats as calls and µs per
// job of n jobs, on one line.
func PerJob(stats []CommandStat, n, top int) string {
	var b strings.Builder
	for i, s := range stats {
		if i == top {
			break
		}
		fmt.Fprintf(&b, " %s %.2f calls %.2f µs;", s.Command, s.Calls/float64(n), s.Usec/float64(n))
	}
	return b.String()
}
