// Package testutil holds what hopper's own tests share: waiting for a
// condition without sleeping as synchronisation (Eventually, Poll,
// Receive) and a logger that stays quiet unless HOPPER_TEST_LOG is set.
// Its subpackage teststore gives the stores an end-to-end test runs on.
package testutil
