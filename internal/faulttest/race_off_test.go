//go:build !race

package faulttest

// raceBuild is true when the tests run with -race: the worker binary is
// then built with -race too, so that races in worker processes are caught.
const raceBuild = false
