package redisstore

// RequiredCommands returns the commands an ACL user of the store needs on
// a single server or a Sentinel setup, subcommands written as
// "config|get": the rules of the ACL SETUSER line in the package
// documentation (Access control), which a test keeps equal. A Cluster
// needs ClusterCommands too. `hopper check --acl-user` asks the server
// whether a user has each of them for the store's keys. Each call returns
// a new slice.
func RequiredCommands() []string {
	return []string{
		"ping",
		"info",
		"config|get",
		"function|load",
		"fcall",
		"script|load",
		"evalsha",
		"eval",
		"time",
		"multi",
		"exec",
		"subscribe",
		"unsubscribe",
		"publish",
		"rpush",
		"del",
		"mget",
		"smembers",
		"sadd",
		"srem",
		"scard",
		"smismember",
		"sismember",
		"hget",
		"hset",
		"hsetnx",
		"hdel",
		"hexists",
		"hgetall",
		"hmget",
		"hincrby",
		"hkeys",
		"hlen",
		"incr",
		"incrby",
		"get",
		"set",
		"lindex",
		"llen",
		"lpop",
		"lpush",
		"lrange",
		"lrem",
		"ltrim",
		"zadd",
		"zcard",
		"zcount",
		"zmscore",
		"zrange",
		"zrangebyscore",
		"zrangebylex",
		"zlexcount",
		"zrevrange",
		"zrem",
		"zremrangebyscore",
		"zscore",
		"exists",
		"xadd",
		"xrange",
		"xrevrange",
		"hscan",
		"unlink",
		"memory|usage",
	}
}

// ClusterCommands returns the commands a Redis Cluster client needs beside
// RequiredCommands: go-redis reads the cluster's slots and command table.
func ClusterCommands() []string {
	return []string{"cluster|slots", "command"}
}
