// Command luaprof prints where hopper's Redis Functions spend their Lua:
// the Lua VM instructions each line of each function executed per job, as
// counted by a redis-server built with redis-7.0-luaprof.patch (a count
// hook that adds one per VM instruction to a counter per function and
// line, for FCALLs only, written at exit to the file named by $LUAPROF;
// CONFIG RESETSTAT zeroes the counts).
//
// VM instructions are a proxy for the scripts' cost, not the cost: a line
// that calls redis.call counts the few instructions of the call, not the
// command it runs, and nothing weighs the tables and strings a line
// allocates. Use it to see which lines a change touches and what the
// interpreter executes; pair it with callgrind.sh for the instructions of
// the whole server per job.
//
// luaprof.sh builds the patched server (once, into a cache directory),
// runs instr against it for the measured phase and then this reader:
//
//	cd bench && go build -o /tmp/instr ./instr
//	./instr/luaprof.sh /tmp/instr hopper 2048 drain -workflow
//	TOP=60 ./instr/luaprof.sh /tmp/instr hopper 2000 enqueue
//
// Run by hand, it reads each function's library source with FUNCTION LIST
// WITHCODE from -addr, shuts that server down (SHUTDOWN NOSAVE) so that it
// writes the counts, waits for the -counts file and prints the VM
// instructions per job (divided by -n): in all, per function, and the -top
// lines with their source text. With -addr "", it reads an existing counts
// file and prints no source.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6391", "the patched redis-server (LUAPROF set) to read sources from and shut down; empty: read -counts only")
	counts := flag.String("counts", "", "the counts `FILE` the server writes at exit ($LUAPROF)")
	n := flag.Int("n", 1, "jobs of the measured phase: counts are divided by it")
	top := flag.Int("top", 40, "lines to list, most instructions first")
	libs := flag.String("libs", "", "also write each function's library source to `DIR`/NAME.lua")
	flag.Parse()
	log.SetFlags(0)
	if *counts == "" || *n <= 0 {
		flag.Usage()
		os.Exit(2)
	}

	code := map[string][]string{}
	if *addr != "" {
		var err error
		if code, err = sources(*addr); err != nil {
			log.Fatal(err)
		}
	}
	rows, err := readCounts(*counts, *addr != "")
	if err != nil {
		log.Fatal(err)
	}
	if *libs != "" {
		if err := os.MkdirAll(*libs, 0o755); err != nil {
			log.Fatal(err)
		}
		for fn, c := range code {
			if err := os.WriteFile(filepath.Join(*libs, fn+".lua"), []byte(strings.Join(c, "\n")), 0o644); err != nil {
				log.Fatal(err)
			}
		}
	}
	report(rows, code, float64(*n), *top)
}

// sources returns the source lines of each function's library, by
// function name, and shuts the server down so that it writes its counts.
func sources(addr string) (map[string][]string, error) {
	ctx := context.Background()
	r := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1}) // no retry of SHUTDOWN
	defer r.Close()
	libs, err := r.FunctionList(ctx, redis.FunctionListQuery{WithCode: true}).Result()
	if err != nil {
		return nil, fmt.Errorf("FUNCTION LIST: %w", err)
	}
	code := map[string][]string{}
	for _, l := range libs {
		lines := strings.Split(l.Code, "\n") // the shebang is line 1, as the counts number it
		for _, f := range l.Functions {
			code[f.Name] = lines
		}
	}
	_ = r.ShutdownNoSave(ctx).Err() // the connection closes: no reply
	return code, nil
}

// row is one line's count.
type row struct {
	fn   string
	line int
	n    int64
}

// readCounts reads the lines "function line count" of file, waiting for
// it (the server renames it into place once written) when wait is set.
func readCounts(file string, wait bool) ([]row, error) {
	deadline := time.Now().Add(15 * time.Second)
	for wait {
		if _, err := os.Stat(file); err == nil || !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w (a server built with redis-7.0-luaprof.patch writes it at exit when LUAPROF names it, once it has run a script)", err)
	}
	defer f.Close()
	var rows []row
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 3 {
			return nil, fmt.Errorf("%s: bad line %q", file, sc.Text())
		}
		l, err1 := strconv.Atoi(p[1])
		c, err2 := strconv.ParseInt(p[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s: bad line %q", file, sc.Text())
		}
		rows = append(rows, row{p[0], l, c})
	}
	return rows, sc.Err()
}

// report prints the counts per job: in all, per function, and the top
// lines with their source.
func report(rows []row, code map[string][]string, div float64, top int) {
	var all int64
	perFn := map[string]int64{}
	for _, r := range rows {
		all += r.n
		perFn[r.fn] += r.n
	}
	if all == 0 {
		fmt.Println("no Lua VM instructions counted: the profiler counts FCALLs only (asynq's scripts run with EVAL)")
		return
	}
	names := shortNames(perFn)
	w := len("function")
	for _, s := range names {
		w = max(w, len(s))
	}
	fmt.Printf("Lua VM instructions per job: %.1f (FCALLs; %d counted)\n\n", float64(all)/div, all)

	fns := make([]string, 0, len(perFn))
	for fn := range perFn {
		fns = append(fns, fn)
	}
	sort.Slice(fns, func(i, j int) bool {
		if perFn[fns[i]] != perFn[fns[j]] {
			return perFn[fns[i]] > perFn[fns[j]]
		}
		return fns[i] < fns[j]
	})
	fmt.Printf("%10s %6s  %-*s  %s\n", "per job", "share", w, "function", "full name")
	for _, fn := range fns {
		fmt.Printf("%10.1f %5.1f%%  %-*s  %s\n", float64(perFn[fn])/div, 100*float64(perFn[fn])/float64(all), w, names[fn], fn)
	}

	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		if rows[i].fn != rows[j].fn {
			return rows[i].fn < rows[j].fn
		}
		return rows[i].line < rows[j].line
	})
	top = min(top, len(rows))
	fmt.Printf("\ntop %d of %d lines:\n%10s %6s  %-*s %5s  %s\n", top, len(rows), "per job", "share", w, "function", "line", "source")
	for _, r := range rows[:top] {
		src := ""
		if c := code[r.fn]; r.line > 0 && r.line <= len(c) {
			src = strings.TrimSpace(c[r.line-1])
		}
		if len(src) > 100 {
			src = src[:97] + "..."
		}
		line := strconv.Itoa(r.line)
		if r.line <= 0 {
			line = "?" // no line information (a C function's frame)
		}
		fmt.Printf("%10.1f %5.1f%%  %-*s %5s  %s\n", float64(r.n)/div, 100*float64(r.n)/float64(all), w, names[r.fn], line, src)
	}
}

// hashed matches the prefix hopper gives its function names,
// hopper_<12 hex digits of the library's hash>_.
var hashed = regexp.MustCompile(`^hopper_[0-9a-f]{12}_`)

// shortNames maps each function name to a short one without hopper's
// hash prefix ("hopper_2bd562c592b7_claim" to "claim"), unless that would
// make two names alike: those keep the hash's first 6 digits.
func shortNames(fns map[string]int64) map[string]string {
	short := map[string]string{}
	uses := map[string]int{}
	for fn := range fns {
		s := hashed.ReplaceAllString(fn, "")
		short[fn] = s
		uses[s]++
	}
	for fn, s := range short {
		if uses[s] > 1 && hashed.MatchString(fn) {
			short[fn] = s + "@" + fn[len("hopper_"):len("hopper_")+6]
		}
	}
	return short
}
