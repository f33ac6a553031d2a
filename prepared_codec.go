package hopper

import (
	"errors"
	"fmt"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/hopperq/hopper/internal/msgpackguard"
	"github.com/hopperq/hopper/internal/mstime"
	"github.com/hopperq/hopper/store"
)

// preparedVersion is the first byte of a marshalled PreparedJob. A new
// format gets a new version; UnmarshalBinary keeps reading every older one.
const preparedVersion = 1

// maxPreparedVersion bounds the version bytes taken for a newer format;
// any later version is still a msgpack value after its version byte.
const maxPreparedVersion = 31

// preparedWire is format version 1 after its version byte: a msgpack map
// with short keys, fields left out when zero. Times are Unix milliseconds
// (rounded up: the store's resolution), durations nanoseconds. New fields may be added
// under new keys without a new version: older readers skip unknown keys.
type preparedWire struct {
	ID         string            `msgpack:"id"`
	Queue      string            `msgpack:"q"`
	Kind       string            `msgpack:"k"`
	Args       []byte            `msgpack:"a"`
	Meta       map[string]string `msgpack:"m,omitempty"`
	MaxRetries int               `msgpack:"r,omitempty"`
	Timeout    int64             `msgpack:"t,omitempty"`
	RunAt      int64             `msgpack:"at,omitempty"`
	Retention  int64             `msgpack:"ret,omitempty"`
	UniqueKey  string            `msgpack:"uk,omitempty"`
	UniqueFor  int64             `msgpack:"uf,omitempty"`
	Priority   int               `msgpack:"pr,omitempty"`
	Group      string            `msgpack:"g,omitempty"`
}

// MarshalBinary encodes the job in a stable, versioned form: one version
// byte, then a msgpack map. Bytes written by one hopper release are read by
// every later one. It never fails for a job from Prepare.
func (p *PreparedJob) MarshalBinary() ([]byte, error) {
	j := &p.job
	w := preparedWire{
		ID: j.ID, Queue: j.Queue, Kind: j.Kind, Args: j.Args, Meta: j.Meta,
		MaxRetries: j.MaxRetries, Timeout: int64(j.Timeout), Retention: int64(j.Retention),
		UniqueKey: j.UniqueKey, UniqueFor: int64(j.UniqueFor), Priority: j.Priority, Group: j.Group,
	}
	if len(w.Meta) == 0 {
		w.Meta = nil
	}
	if !j.RunAt.IsZero() {
		w.RunAt = mstime.CeilUnix(j.RunAt) // never earlier than asked
	}
	b, err := msgpack.Marshal(&w)
	if err != nil {
		return nil, fmt.Errorf("hopper: marshal prepared job %q: %w", j.ID, err)
	}
	return append([]byte{preparedVersion}, b...), nil
}

// UnmarshalBinary replaces p with the job encoded in b by MarshalBinary.
// Bytes of a format version newer than this hopper knows (a version byte
// from 2 to 31 before one msgpack value) fail with an error wrapping
// ErrNotSupported: a newer release wrote them, leave them for it. Other
// bytes that are not a prepared job fail with one wrapping ErrInvalidJob. It checks the encoding, not the job: call Validate.
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
	var w preparedWire
	if err := decodeWire(b[1:], &w); err != nil {
		return fmt.Errorf("%w: prepared job: %v", ErrInvalidJob, err)
	}
	p.job = fromWire(&w)
	return nil
}

// decodeWire decodes a checked version 1 map, turning a panic of msgpack
// v5 on odd input into an error.
func decodeWire(b []byte, w *preparedWire) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("msgpack panicked: %v", r)
		}
	}()
	if err := msgpack.Unmarshal(b, w); err != nil {
		return err
	}
	if w.ID == "" {
		return errors.New("no ID")
	}
	return nil
}

func fromWire(w *preparedWire) (j store.NewJob) {
	j = store.NewJob{
		ID: w.ID, Queue: w.Queue, Kind: w.Kind, Args: w.Args, JobSpec: store.JobSpec{Meta: w.Meta, MaxRetries: w.MaxRetries, Timeout: time.Duration(w.Timeout), Retention: time.Duration(w.Retention), UniqueKey: w.UniqueKey, UniqueFor: time.Duration(w.UniqueFor), Priority: w.Priority, Group: w.Group},
	}
	if w.RunAt != 0 {
		j.RunAt = time.UnixMilli(w.RunAt)
	}
	if j.Meta == nil {
		j.Meta = map[string]string{}
	}
	return j
}
