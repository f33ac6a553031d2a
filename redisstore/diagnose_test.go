package redisstore_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/hopperq/hopper/internal/redistest"
	"github.com/hopperq/hopper/redisstore"
)

// TestACLRulesMatchDoc: the rules CheckACL asks about are the grants of
// the documented ACL SETUSER line (doc.go, README), in its order.
func TestACLRulesMatchDoc(t *testing.T) {
	var want []string
	for _, r := range aclRecipe(t) {
		if strings.HasPrefix(r, "+") || strings.HasPrefix(r, "~") || strings.HasPrefix(r, "&") {
			want = append(want, r)
		}
	}
	if got := redisstore.ACLRules("hopper", false); !slices.Equal(got, want) {
		t.Fatalf("ACLRules:\n%v\nthe documented line grants:\n%v", got, want)
	}
	got := redisstore.ACLRules("p", true)
	if !slices.Contains(got, "~{p:*") || !slices.Contains(got, "&p:*") || !slices.Contains(got, "+cluster|slots") || !slices.Contains(got, "+command") {
		t.Fatalf("ACLRules(p, cluster): %v", got)
	}
}

// denied returns the rules a node's check found missing.
func denied(n redisstore.ACLNode) []string {
	var out []string
	for _, d := range n.Denied {
		out = append(out, d.Rule)
	}
	return out
}

// TestCheckACL: a user with the documented rights passes; one without a
// command, a key pattern or the channel pattern is told exactly which;
// one without MULTI is told the check is incomplete. Nothing is written.
func TestCheckACL(t *testing.T) {
	srv := redistest.Start(t, redistest.Private())
	admin := srv.Client(t)
	for _, c := range []struct {
		name    string
		without []string
		want    []string // denied rules, for prefix "{p"
	}{
		{"documented rights", nil, nil},
		{"a command", []string{"+lpop"}, []string{"+lpop"}},
		{"a command named like keys", []string{"+hkeys"}, []string{"+hkeys"}},
		{"a subcommand", []string{"+memory|usage"}, []string{"+memory|usage"}},
		{"the scripts and their commands", []string{"+fcall", "+zadd"}, []string{"+fcall", "+zadd"}},
		{"the store-wide keys", []string{"~{hopper}:*"}, []string{"~{p}:*"}},
		{"the queue keys", []string{"~{hopper:*"}, []string{"~{p:*"}},
		{"the channels", []string{"&hopper:*"}, []string{"&p:*"}},
		{"EXEC", []string{"+exec"}, []string{"+exec"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			prefix := redistest.Prefix(t)
			rdb := aclUser(t, admin, prefix, prefix, c.without, nil, srv.Client)
			nodes, err := redisstore.New(rdb, &redisstore.Config{Prefix: prefix}).CheckACL(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if len(nodes) != 1 || nodes[0].Addr != srv.Addr || nodes[0].Incomplete != "" {
				t.Fatalf("nodes: %+v", nodes)
			}
			var want []string
			for _, r := range c.want {
				want = append(want, strings.ReplaceAll(r, "{p", "{"+prefix))
			}
			for i, r := range want {
				if r == "&p:*" {
					want[i] = "&" + prefix + ":*"
				}
			}
			if got := denied(nodes[0]); !slices.Equal(got, want) {
				t.Fatalf("denied %v, want %v (%+v)", got, want, nodes[0].Denied)
			}
			if n := nodes[0].Checked; n != len(redisstore.ACLRules(prefix, false)) {
				t.Errorf("checked %d rules", n)
			}
			for _, d := range nodes[0].Denied {
				if !strings.Contains(d.Reply, "NOPERM") || d.Command == "" {
					t.Errorf("denial %+v: want the command and its NOPERM reply", d)
				}
			}
			if keys, err := admin.Keys(t.Context(), "*"+prefix+"*").Result(); err != nil || len(keys) != 0 {
				t.Fatalf("keys written by the check: %v, %v", keys, err)
			}
		})
	}
	t.Run("MULTI", func(t *testing.T) {
		prefix := redistest.Prefix(t)
		rdb := aclUser(t, admin, prefix, prefix, []string{"+multi"}, nil, srv.Client)
		nodes, err := redisstore.New(rdb, &redisstore.Config{Prefix: prefix}).CheckACL(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if got := denied(nodes[0]); !slices.Equal(got, []string{"+multi"}) || nodes[0].Incomplete == "" {
			t.Fatalf("without +multi: %+v, want +multi denied and the check incomplete", nodes[0])
		}
	})
	t.Run("admin writes nothing", func(t *testing.T) {
		prefix := redistest.Prefix(t)
		nodes, err := redisstore.New(admin, &redisstore.Config{Prefix: prefix}).CheckACL(t.Context())
		if err != nil || len(nodes[0].Denied) != 0 {
			t.Fatalf("%+v, %v", nodes, err)
		}
		if n, err := admin.DBSize(t.Context()).Result(); err != nil || n != 0 {
			t.Fatalf("%d keys after the check as an admin (%v): it ran what it should only have queued", n, err)
		}
	})
}

// TestCheckACLCluster: on a Redis Cluster every master is asked, and
// commands on keys of other masters' slots (refused with MOVED once the
// ACL passed) count as allowed.
func TestCheckACLCluster(t *testing.T) {
	c := redistest.StartCluster(t)
	prefix := redistest.Prefix(t)
	for _, without := range [][]string{nil, {"+lpop"}} {
		user := fmt.Sprint(prefix, len(without))
		if err := doOnNodes(t.Context(), c.Addrs, aclSetUser(t, user, prefix, without, []string{"+cluster|slots", "+command"})...); err != nil {
			t.Fatal(err)
		}
		rdb := c.Client(t, func(o *redis.ClusterOptions) { o.Username, o.Password = user, "secret" })
		nodes, err := redisstore.New(rdb, &redisstore.Config{Prefix: prefix}).CheckACL(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(nodes) != 3 {
			t.Fatalf("%d nodes checked, want the 3 masters: %+v", len(nodes), nodes)
		}
		for _, n := range nodes {
			if got := denied(n); !slices.Equal(got, without) || n.Checked != len(redisstore.ACLRules(prefix, true)) {
				t.Fatalf("without %v: %s denied %v (checked %d)", without, n.Addr, got, n.Checked)
			}
		}
	}
}
