package redisstore

// CrashWorkflowsAt makes s stop its workflow deliveries at step ("apply",
// "release", "confirm", "done"; "" for never) as if its process died
// there, leaving the rest to a sweeper.
func CrashWorkflowsAt(s *Store, step string) {
	if step == "" {
		s.wfCrash.Store(nil)
		return
	}
	s.wfCrash.Store(&step)
}
