package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/hopperq/hopper/outbox/internal/pgtest"
)

// envProgramArgs, set to a JSON list of arguments, makes the test binary
// run as the program itself (TestMain), so that the tests see its real
// exit status and what it writes to stdout and stderr.
const envProgramArgs = "HOPPER_OUTBOX_TEST_PROGRAM_ARGS"

// runAsProgram runs main with the arguments of envProgramArgs; main exits.
func runAsProgram(raw string) {
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	os.Args = append(os.Args[:1], args...)
	main()
	os.Exit(0)
}

// programResult is what the program did: its exit status and output.
type programResult struct {
	code           int
	stdout, stderr string
}

// runProgram runs the program with args as a process of its own, in an
// environment without $HOPPER_POSTGRES_URL, $DATABASE_URL and
// $HOPPER_REDIS_URL, plus env.
func runProgram(t *testing.T, env []string, args ...string) programResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "HOPPER_POSTGRES_URL", "DATABASE_URL", "HOPPER_REDIS_URL", envProgramArgs:
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, env...), envProgramArgs+"="+string(raw))
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%q: %v", args, err)
	}
	return programResult{code: cmd.ProcessState.ExitCode(), stdout: out.String(), stderr: errs.String()}
}

// noPostgres is a PostgreSQL URL that refuses connections: a command that
// fails with it connected, or tried to.
const noPostgres = "postgres://127.0.0.1:1/x?sslmode=disable"

// TestBadUsageExitsTwo: a flag, a flag value or an argument a command
// cannot take exits 2, before connecting to anything, with one line that
// names the program, the command and what was wrong (saying "hopper"
// once), then the command's usage, all on stderr. Values the program
// refused after parsing ("--batch -1", "--table Bad", no or a malformed
// --postgres) exited 1 with a line that said "hopper outbox relay:
// hopper: invalid config: ..." and no usage; a malformed --redis or
// --redis-prefix was found only after connecting to PostgreSQL, and a
// --redis-prefix redisstore refuses crashed the program.
func TestBadUsageExitsTwo(t *testing.T) {
	pg := []string{"--postgres", noPostgres}
	for _, tc := range []struct {
		args  []string
		line  string // the first line of stderr starts so
		usage string
	}{
		{[]string{"relay", "--nosuch"}, "hopper outbox relay: flag provided but not defined: -nosuch", "relay"},
		{[]string{"relay", "--batch", "x"}, `hopper outbox relay: invalid value "x" for flag -batch: parse error`, "relay"},
		{[]string{"relay", "--batch", "-1"}, "hopper outbox relay: --batch: RelayConfig.BatchSize -1 must be between 1 and 10000", "relay"},
		{[]string{"relay", "--poll", "1ms"}, "hopper outbox relay: --poll: RelayConfig.PollInterval 1ms must be at least 10ms", "relay"},
		{[]string{"relay", "--table", "Bad"}, `hopper outbox relay: --table: outbox table "Bad": each part must be lower-case letters`, "relay"},
		{[]string{"relay", "--postgres="}, "hopper outbox relay: no PostgreSQL URL: set --postgres, $HOPPER_POSTGRES_URL or $DATABASE_URL", "relay"},
		{[]string{"relay", "--postgres", "%zz"}, "hopper outbox relay: --postgres: cannot parse `%zz`", "relay"},
		{append([]string{"relay", "--redis="}, pg...), "hopper outbox relay: --redis is empty: give host:port or a redis:// URL", "relay"},
		{append([]string{"relay", "--redis", "redis://localhost:notaport"}, pg...), `hopper outbox relay: --redis "redis://localhost:notaport": invalid port ":notaport" after host`, "relay"},
		{append([]string{"relay", "--redis", "redis://u:secret@localhost:notaport"}, pg...), `hopper outbox relay: --redis "redis://u:xxxxx@localhost:notaport": invalid port`, "relay"},
		{append([]string{"relay", "--cluster", "--redis", "redis://localhost:notaport"}, pg...), `hopper outbox relay: --redis "redis://localhost:notaport": invalid port`, "relay"},
		{append([]string{"relay", "--redis-prefix", "a{b"}, pg...), `hopper outbox relay: --redis-prefix: Config.Prefix "a{b" has "{"`, "relay"},
		{append([]string{"relay", "--redis-prefix="}, pg...), `hopper outbox relay: --redis-prefix is empty: give the key prefix of the store, or leave the flag out for the default`, "relay"},
		{append([]string{"relay", "extra"}, pg...), `hopper outbox relay: unexpected argument "extra"`, "relay"},
		{[]string{"migrate", "--table", "Bad"}, `hopper outbox migrate: --table: outbox table "Bad"`, "migrate"},
		{[]string{"migrate", "--postgres", "%zz"}, "hopper outbox migrate: --postgres: cannot parse `%zz`", "migrate"},
		{[]string{"stats", "--table", "Bad"}, `hopper outbox stats: --table: outbox table "Bad"`, "stats"},
		{[]string{"stats"}, "hopper outbox stats: no PostgreSQL URL", "stats"},
		{[]string{"stats", "--json=maybe"}, `hopper outbox stats: invalid boolean value "maybe" for -json`, "stats"},
		{[]string{"schema", "--table", "Bad"}, `hopper outbox schema: --table: outbox table "Bad"`, "schema"},
		{[]string{"schema", "extra"}, `hopper outbox schema: unexpected argument "extra"`, "schema"},
		{[]string{"nope"}, `hopper outbox: unknown command "nope"`, "<command>"},
	} {
		what := strings.Join(tc.args, " ")
		r := runProgram(t, nil, tc.args...)
		line, rest, _ := strings.Cut(r.stderr, "\n")
		if r.code != 2 || r.stdout != "" || !strings.HasPrefix(line, tc.line) || !strings.HasPrefix(rest, "\nusage: hopper outbox "+tc.usage+" ") {
			t.Errorf("%s: exit %d, want 2 with the line %q, a blank line and the usage of %s on stderr; got\nstdout:\n%s\nstderr:\n%s", what, r.code, tc.line, tc.usage, r.stdout, r.stderr)
		}
		if strings.Count(line, "hopper") != 1 {
			t.Errorf("%s: %q says \"hopper\" more than once", what, line)
		}
		if strings.Contains(r.stderr, "secret") {
			t.Errorf("%s: stderr shows the password: %q", what, r.stderr)
		}
	}
}

// TestHelpExitsZero: help asked for, of the program or of a command,
// prints the usage to stdout and exits 0. A command's help ("relay -h")
// went to stderr with exit 2, as bad usage does.
func TestHelpExitsZero(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		usage string
	}{
		{[]string{"-h"}, "<command>"},
		{[]string{"--help"}, "<command>"},
		{[]string{"help"}, "<command>"},
		{[]string{"relay", "-h"}, "relay"},
		{[]string{"relay", "--help"}, "relay"},
		{[]string{"relay", "--batch", "-1", "-h"}, "relay"},
		{[]string{"migrate", "-help"}, "migrate"},
		{[]string{"stats", "--json", "-h"}, "stats"},
		{[]string{"schema", "-h"}, "schema"},
		{[]string{"help", "relay"}, "relay"},
	} {
		what := strings.Join(tc.args, " ")
		r := runProgram(t, nil, tc.args...)
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "usage: hopper outbox "+tc.usage+" ") {
			t.Errorf("%s: exit %d, want 0 with the usage of %s on stdout; got\nstdout:\n%s\nstderr:\n%s", what, r.code, tc.usage, r.stdout, r.stderr)
		}
	}
}

// TestFailureSaidOnce: a failure while running exits 1 with one line
// on stderr, "hopper outbox <command>: why", which says it once.
// PostgreSQL refusing the connection printed pgx's error over three
// lines, the same dial error on two of them.
func TestFailureSaidOnce(t *testing.T) {
	for _, args := range [][]string{
		{"relay", "--postgres", "postgres://127.0.0.1:1/x"},
		{"migrate", "--postgres", "postgres://127.0.0.1:1/x"},
		{"stats", "--postgres", "postgres://127.0.0.1:1/x"},
	} {
		what := strings.Join(args, " ")
		r := runProgram(t, nil, args...)
		want := "hopper outbox " + args[0] + ": cannot reach PostgreSQL: failed to connect to `user="
		if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 || strings.Count(r.stderr, "connection refused") != 1 {
			t.Errorf("%s: exit %d, want 1 with one line %q... naming the refusal once; got\nstdout:\n%s\nstderr:\n%s", what, r.code, want, r.stdout, r.stderr)
		}
	}
}

// TestRedisUnreachableSaidOnce: a relay whose Redis refuses connections
// exits 1 with one line saying so. go-redis logged the failed dials first,
// one line per attempt, each saying the same thing.
func TestRedisUnreachableSaidOnce(t *testing.T) {
	pgURL := pgtest.DB(t)
	r := runProgram(t, nil, "relay", "--postgres", pgURL, "--redis", "redis://127.0.0.1:1/0")
	want := "hopper outbox relay: cannot reach Redis at redis://127.0.0.1:1/0: dial tcp 127.0.0.1:1: connect: connection refused\n"
	if r.code != 1 || r.stdout != "" || r.stderr != want {
		t.Errorf("exit %d, want 1 with stderr %q; got\nstdout:\n%s\nstderr:\n%s", r.code, want, r.stdout, r.stderr)
	}
	// host:port names a server, as in the hopper command: it was refused
	// as bad usage ("invalid URL scheme"), exit 2.
	r = runProgram(t, nil, "relay", "--postgres", pgURL, "--redis", "127.0.0.1:1")
	want = "hopper outbox relay: cannot reach Redis at redis://127.0.0.1:1: dial tcp 127.0.0.1:1: connect: connection refused\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("--redis host:port: exit %d, want 1 with stderr %q; got\n%s", r.code, want, r.stderr)
	}
}

// TestPasswordsHidden: no message or help shows a password. A --postgres
// in keyword/value form was quoted whole when PostgreSQL could not be
// reached ("cannot reach PostgreSQL at host=h ... password=secret: ..."),
// and the help printed the defaults from $DATABASE_URL and
// $HOPPER_REDIS_URL as they were.
func TestPasswordsHidden(t *testing.T) {
	r := runProgram(t, nil, "stats", "--postgres", "host=127.0.0.1 port=1 dbname=x user=u password=secret sslmode=disable")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "hopper outbox stats: cannot reach PostgreSQL: failed to connect to `user=u database=x`: 127.0.0.1:1") || strings.Contains(r.stderr, "secret") {
		t.Errorf("PostgreSQL unreachable: exit %d, want 1 and no password; stderr:\n%s", r.code, r.stderr)
	}
	env := []string{"DATABASE_URL=postgres://u:secret@db.example:5432/app", "HOPPER_REDIS_URL=redis://u:secret@redis.example:6379/0"}
	r = runProgram(t, env, "relay", "-h")
	if r.code != 0 || strings.Contains(r.stdout, "secret") || !strings.Contains(r.stdout, `"redis://u:xxxxx@redis.example:6379/0"`) {
		t.Errorf("relay -h: exit %d, want 0, the Redis default with its password hidden and no password; stdout:\n%s", r.code, r.stdout)
	}
}
