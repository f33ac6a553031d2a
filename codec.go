package hopper

import (
	"fmt"

	"github.com/vmihailenco/msgpack/v5"
)

// encodeArgs encodes job arguments with msgpack. Structs are encoded as maps
// keyed by field name (or msgpack tag), so adding or removing a field stays
// compatible with jobs already enqueued.
func encodeArgs(args any) ([]byte, error) {
	b, err := msgpack.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("hopper: encode args of kind %T: %w", args, err)
	}
	return b, nil
}

// decodeArgs decodes b into v, a pointer to the handler's argument type.
// Decoding into a concrete type bounds allocations by the input size: a few
// bytes that claim a huge length fail with an error instead of allocating.
func decodeArgs(b []byte, v any) error {
	if err := msgpack.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%w: %v", ErrDecode, err)
	}
	return nil
}
