// Package mpack holds the msgpack primitives that hopper's hand-written
// codecs share: appending headers and scalars to a byte slice, and a Reader
// that walks msgpack held in a string without copying it.
//
// Written here rather than taken from a library because the Redis store
// encodes and decodes a job's envelope once per job on the hot path, where
// a general library's reflection and allocations show; the bytes are plain
// msgpack, which any library reads. Its users: internal/wire (the codec of
// a job's keyed fields) and redisstore (the envelope, error histories,
// progress, events and job-wait messages).
package mpack
