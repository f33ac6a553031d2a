package store

import (
	"context"
	"time"
)

// ServerInfo describes the servers a store keeps its data on, for an
// operator (the dashboard's Redis page). Numbers a server does not report
// are zero; strings, empty.
type ServerInfo struct {
	// Nodes are the servers: one for a single server, each master and
	// replica of a Cluster.
	Nodes []NodeInfo
	// Queues estimates the memory each queue's keys take, largest first.
	Queues []QueueMemory
	// Samples is how many elements of each collection the estimate
	// sampled (MEMORY USAGE … SAMPLES); QueuesMeasured and QueuesTotal say
	// how many queues were measured out of how many (at most
	// MaxQueuesMeasured).
	Samples                     int
	QueuesMeasured, QueuesTotal int
	// QueuesErr is why queues could not be measured (MEMORY USAGE refused,
	// say); Queues is then empty.
	QueuesErr string
}

// MaxQueuesMeasured bounds the queues ServerInfo measures, so the page stays
// cheap with hundreds of queues: the first ones by name.
const MaxQueuesMeasured = 200

// NodeInfo is one server's INFO.
type NodeInfo struct {
	// Addr is where the store reaches it; Role is "master" or "replica".
	Addr, Role string
	// Version is the server's version; Mode is "standalone", "cluster" or
	// "sentinel".
	Version, Mode string
	// Uptime is how long the server has run.
	Uptime time.Duration
	// UsedMemory, PeakMemory and MaxMemory are bytes; MaxMemory zero means
	// no limit. MaxMemoryPolicy is what happens at the limit
	// ("noeviction" keeps jobs safe; an eviction policy may drop them).
	UsedMemory, PeakMemory, MaxMemory int64
	MaxMemoryPolicy                   string
	// Clients and BlockedClients count connections, and those blocked in
	// a command (idle workers waiting for jobs).
	Clients, BlockedClients int64
	// AOF reports that the append-only file is on; AOFFsync is its fsync
	// policy ("everysec", "always", "no"; empty when CONFIG is refused).
	AOF      bool
	AOFFsync string
	// RDBLastSave is when the last snapshot was saved (zero: never), and
	// RDBLastStatus how the last one went ("ok", "err");
	// RDBChangesSinceSave counts writes since.
	RDBLastSave         time.Time
	RDBLastStatus       string
	RDBChangesSinceSave int64
	// Replicas counts a master's connected replicas; Master is a
	// replica's master ("host:port") and MasterLinkUp whether its link is
	// up.
	Replicas     int
	Master       string
	MasterLinkUp bool
	// Err is why the node could not be read; the other fields are then
	// zero.
	Err string
}

// QueueMemory is the estimated memory of one queue's keys.
type QueueMemory struct {
	Queue string
	// Bytes is the estimate, the sum of MEMORY USAGE over the queue's keys.
	Bytes int64
	// Keys counts the queue's keys that exist.
	Keys int
}

// ServerInformer is an optional Store interface that reports on its
// servers (redisstore implements it; memstore has no server). Find it with
// As. Safe for concurrent use.
type ServerInformer interface {
	// ServerInfo reads every node's INFO and estimates each queue's
	// memory. A node that cannot be read is listed with Err; the call
	// fails only when no node can be reached.
	ServerInfo(ctx context.Context) (*ServerInfo, error)
}
