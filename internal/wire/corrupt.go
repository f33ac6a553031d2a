package wire

import "errors"

// ErrCorrupt is returned (wrapped) for bytes that are not the msgpack a
// Codec expects.
var ErrCorrupt = errors.New("wire: corrupt msgpack")
