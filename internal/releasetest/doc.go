// Package releasetest checks that a program outside this repository gets
// hopper and its outbox by version, as a user would with go get: the test
// serves both modules, zipped from the checkout at hopper.Version, from a
// local module proxy and builds a scratch module against them with no
// replace directive. It is a module of its own so that its dependency
// (golang.org/x/mod, which writes module zips exactly as the proxy
// protocol wants them) stays out of the library's go.mod.
package releasetest
