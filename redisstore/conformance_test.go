package redisstore_test

import (
	"os"
	"testing"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
	"github.com/hopperq/hopper/store"
	"github.com/hopperq/hopper/storetest"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(firstCallAddr); addr != "" {
		// A new process of TestFirstCallBuildsItsOwnScript, as
		// production has it: without the key check.
		os.Exit(firstCallChild(addr))
	}
	// Every script of every test fails on a key it was not given.
	redisstore.CheckKeys()
	redistest.Main(m)
}

// TestConformance runs the Store conformance suite against one Redis
// server, with a fresh Prefix per store.
func TestConformance(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// TestConformanceCluster runs the suite against a three-master Redis
// Cluster.
func TestConformanceCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("cluster conformance in -short mode")
	}
	c := redistest.StartCluster(t)
	rdb := c.Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t)})
	})
}

// TestConformanceStagedWorkflows runs the suite against one server with
// every script kept to one hash slot, as on a Cluster, and every workflow
// of more than two tasks stored in steps, two tasks a staging call
// (workflow_stage.go; TestSecureConformance stages on one server).
func TestConformanceStagedWorkflows(t *testing.T) {
	rdb := redistest.Start(t).Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		s := redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), OneSlotPerScript: true})
		redisstore.StageWorkflowTasks(s, 2)
		return s
	})
}

// TestConformanceOneSlotPerScript runs the suite against one server with
// every script kept to one hash slot, as on a Cluster: workflow task ends
// go to records, delivered in separate steps (by default one server
// applies them in the script that ends the task).
func TestConformanceOneSlotPerScript(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return redisstore.New(rdb, &redisstore.Config{Prefix: redistest.Prefix(t), OneSlotPerScript: true})
	})
}
