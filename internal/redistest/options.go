package redistest

// Option changes the server Start or StartCluster gives a test. Any option
// that changes how the server runs makes it private to the test.
type Option func(*config)

// config is what the options set. New options add fields here; process
// start-up reads them in serverArgs.
type config struct {
	// private asks for a server of the test's own even when a shared one
	// would do.
	private bool
	// args are extra redis-server arguments, appended after the defaults
	// (so they win over them).
	args []string
}

// Private gives the test a server of its own, stopped in its t.Cleanup, even
// when the test binary shares one (see Main). Use it for tests that change
// the server's state beyond their key prefix: CONFIG SET, ACL SETUSER,
// FLUSHALL, stopping or restarting it.
func Private() Option {
	return func(c *config) { c.private = true }
}

// Args passes extra arguments to redis-server, such as "--maxmemory",
// "10mb" or "--appendonly", "yes"; they come after the defaults (--save ""
// --appendonly no) and so override them. It implies Private.
func Args(args ...string) Option {
	return func(c *config) {
		c.private = true
		c.args = append(c.args, args...)
	}
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o(&c)
	}
	return c
}

// serverArgs returns the redis-server command line for one server on port
// with its files in dir.
func (c config) serverArgs(port int, dir string, extra ...string) []string {
	args := []string{
		"--port", itoa(port),
		"--bind", "127.0.0.1",
		"--dir", dir,
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--logfile", "",
	}
	args = append(args, extra...)
	return append(args, c.args...)
}
