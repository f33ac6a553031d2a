// Package msgpackguard checks msgpack bytes before a general decoder sees
// them.
//
// msgpack v5 trusts the lengths in msgpack headers: decoding into
// interface{}, []T or map types, it allocates what a header claims before it
// reads the elements, so five bytes that claim four billion elements can ask
// for tens of gigabytes. The Go runtime cannot recover from running out of
// memory, so such bytes would kill the process. Deep nesting makes the
// decoder recurse once per level.
//
// Check walks the bytes once, without allocating, and accepts only one
// complete, well-formed msgpack value nested at most MaxDepth deep. After
// Check returns nil, every length a header claims is backed by real bytes:
// the elements of all arrays and maps together number at most len(b), so a
// decoder that allocates per claimed element allocates in proportion to the
// input.
package msgpackguard
