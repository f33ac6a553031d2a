// Package wire is the one codec of a job's fields: it encodes the fields of
// a struct that carry a `wire:"key"` tag as a msgpack map from key to
// value, leaving zero fields out, and decodes such a map back. Every keyed
// format of a job derives from it: hopper.PreparedJob (store.NewJob), the
// stored schedules (redisstore), and the part of the Redis envelope after
// its six fixed fields (store.JobSpec). A field added to store.JobSpec with
// a new key is therefore carried by all of them with no edit here.
//
// A Codec is built once per struct type, by reflection, and then only
// walks its table: no allocation to encode besides the output, and on
// decode only the values kept. Readers skip keys they do not know, so a
// newer version may add keys and an older one still reads the rest.
//
// Types and their encoding: string (str), bool (true; false is zero),
// signed integers and time.Duration (int, nanoseconds for a duration),
// unsigned integers (uint), time.Time (int, Unix milliseconds rounded up:
// the stores' resolution), []byte (bin), []string (array of str) and
// map[string]string (map). For a slice or map, empty counts as zero: it is
// left out, and decodes as nil. A nil value decodes as the zero value. A struct field tagged `wire:",inline"`,
// or embedded without a tag, has its fields encoded as if they were the
// outer struct's.
package wire
