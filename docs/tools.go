//go:build docsdeps

// This file names the modules the guide's code blocks use (peer systems in
// the "coming from" pages, the outbox's drivers), so that go.mod requires
// them and the test can compile the blocks. It is never built.
package docs

import (
	_ "github.com/hibiken/asynq"
	_ "github.com/hopperq/hopper"
	_ "github.com/hopperq/hopper/dashboard"
	_ "github.com/hopperq/hopper/hoppertest"
	_ "github.com/hopperq/hopper/memstore"
	_ "github.com/hopperq/hopper/middleware"
	_ "github.com/hopperq/hopper/outbox"
	_ "github.com/hopperq/hopper/outbox/pgxoutbox"
	_ "github.com/hopperq/hopper/redisstore"
	_ "github.com/hopperq/hopper/storetest"
	_ "github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/redis/go-redis/v9"
	_ "github.com/riverqueue/river"
	_ "github.com/riverqueue/river/riverdriver/riverpgxv5"
	_ "golang.org/x/tools/imports"
	_ "gopkg.in/yaml.v3"
)
