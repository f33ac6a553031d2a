package hopper

import (
	"fmt"

	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/internal/wire"
	"github.com/hopperq/hopper/store"
)

// preparedVersion is the first byte of a marshalled PreparedJob. A new
// format gets a new version; UnmarshalBinary keeps reading every older one.
const preparedVersion = 1

// maxPreparedVersion bounds the version bytes taken for a newer format;
// any later version is still a msgpack value after its version byte.
const maxPreparedVersion = 31

// preparedCodec is format version 1 after its version byte: a msgpack map
// of every field of store.NewJob that has a wire key (ID, Queue, Kind,
// Args, RunAt, Replace and every JobSpec field), zero fields left out.
// Times are Unix milliseconds (rounded up: the store's resolution),
// durations nanoseconds. A field added to store.JobSpec is carried under
// its new key without a new version: older readers skip unknown keys.
var preparedCodec = wire.New[store.NewJob]()

// MarshalBinary encodes the job in a stable, versioned form: one version
// byte, then a msgpack map. Bytes written by one hopper release are read by
// every later one. It fails only for a job with a Delay (one an enqueue
// middleware holds, whose due time is not fixed yet), with an error
// wrapping ErrInvalidJob: a job from Prepare never fails.
func (p *PreparedJob) MarshalBinary() ([]byte, error) {
	if p.job.Delay != 0 {
		return nil, fmt.Errorf("%w: job %q has a Delay, not a fixed RunAt: only a job from Prepare can be marshalled", ErrInvalidJob, p.job.ID)
	}
	b := make([]byte, 1, 64+len(p.job.Args))
	b[0] = preparedVersion
	b, _ = preparedCodec.AppendMap(b, &p.job)
	return b, nil
}

// UnmarshalBinary replaces p with the job encoded in b by MarshalBinary.
// Bytes of a format version newer than this hopper knows (a version byte
// from 2 to 31 before one msgpack value) fail with an error wrapping
// ErrNotSupported: a newer release wrote them, leave them for it. Other
// bytes that are not a prepared job fail with one wrapping ErrInvalidJob.
// It checks the encoding, not the job: call Validate.
func (p *PreparedJob) UnmarshalBinary(b []byte) error {
	if len(b) == 0 {
		return fmt.Errorf("%w: prepared job: no bytes", ErrInvalidJob)
	}
	if err := msgpackguard.Check(b[1:]); err != nil {
		return fmt.Errorf("%w: prepared job: %v", ErrInvalidJob, err)
	}
	if b[0] != preparedVersion {
		if b[0] > preparedVersion && b[0] <= maxPreparedVersion {
			return fmt.Errorf("%w: prepared job format version %d (this hopper reads up to %d)", ErrNotSupported, b[0], preparedVersion)
		}
		return fmt.Errorf("%w: prepared job: unknown format version %d", ErrInvalidJob, b[0])
	}
	var j store.NewJob
	if _, err := preparedCodec.Decode(string(b[1:]), &j); err != nil {
		return fmt.Errorf("%w: prepared job: %v", ErrInvalidJob, err)
	}
	if j.ID == "" {
		return fmt.Errorf("%w: prepared job: no ID", ErrInvalidJob)
	}
	if j.Meta == nil {
		j.Meta = map[string]string{}
	}
	p.job = j
	return nil
}
