package redisstore

import (
	"strings"
	"time"

	"github.com/hopperq/hopper/internal/mpack"
	"github.com/hopperq/hopper/store"
)

// A progress report travels to extend.lua, and a job's progress is kept in
// the hash {p:q}:pg, as the msgpack array [percent, data, lines], each line
// [atMs, text]. extend.lua appends a report's lines to the job's and keeps
// the last store.MaxLogLines.

// encodeProgress returns the report p as extend.lua reads it.
func encodeProgress(p *store.Progress) []byte {
	size := 16 + len(p.Data)
	for _, l := range p.Log {
		size += 16 + len(l.Text)
	}
	b := make([]byte, 0, size)
	b = mpack.AppendArrayHeader(b, 3)
	b = mpack.AppendFloat(b, p.Percent)
	b = mpack.AppendStr(b, string(p.Data)) // Lua's cmsgpack reads no bin
	b = mpack.AppendArrayHeader(b, len(p.Log))
	for _, l := range p.Log {
		b = mpack.AppendArrayHeader(b, 2)
		b = mpack.AppendInt(b, l.At.UnixMilli())
		b = mpack.AppendStr(b, l.Text)
	}
	return b
}

// decodeProgress decodes a report or a job's progress. Lua's cmsgpack
// writes the data back as a str and a whole percentage as an integer;
// both read the same.
func decodeProgress(s string) (*store.Progress, error) {
	r := newReader(s)
	n := r.ArrayLen()
	if n < 3 {
		return nil, errCorrupt
	}
	p := &store.Progress{Percent: r.float()}
	if data := r.bytes(); data != "" {
		p.Data = []byte(data)
	}
	lines := r.listLen()
	if lines > 0 {
		p.Log = make([]store.LogLine, 0, lines)
	}
	for range lines {
		m := r.ArrayLen()
		l := store.LogLine{At: time.UnixMilli(r.int()), Text: strings.Clone(r.bytes())}
		for i := 2; i < m; i++ {
			r.Skip()
		}
		p.Log = append(p.Log, l)
	}
	for i := 3; i < n; i++ {
		r.Skip()
	}
	if r.err() != nil {
		return nil, r.err()
	}
	return p, nil
}
