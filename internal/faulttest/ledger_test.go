package faulttest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// event is one line of a worker's ledger (see testworker/ledger.go).
type event struct {
	Ev       string `json:"ev"`
	Worker   string `json:"w"`
	Queue    string `json:"q"`
	ID       string `json:"id"`
	Attempt  int    `json:"att"`
	Token    uint64 `json:"tok"`
	Claimed  int64  `json:"claimed"`
	Deadline int64  `json:"deadline"`
	RunAt    int64  `json:"runat"`
	Outcome  string `json:"out"`
	Err      string `json:"err"`
	Local    int64  `json:"local"`
}

func (e event) key() jobKey { return jobKey{e.Queue, e.ID} }

func (e event) at() time.Time { return time.UnixMilli(e.Local) }

// jobKey names a job.
type jobKey struct{ queue, id string }

// readLedger reads one ledger file; a missing file is an empty ledger, a
// torn last line (none is expected: each line is one write) is skipped.
func readLedger(path string) ([]event, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var evs []event
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			evs = append(evs, e)
		}
	}
	return evs, sc.Err()
}

// ledgerReader reads the *.jsonl files of a directory incrementally, so
// that polling the ledgers costs only what was appended since. It is safe
// for concurrent use.
type ledgerReader struct {
	mu    sync.Mutex
	dir   string
	files map[string]*ledgerFile
	evs   []event
}

type ledgerFile struct {
	off  int64
	tail []byte // an incomplete last line
}

// read returns every event written so far, in file order per file. The
// slice must not be modified.
func (l *ledgerReader) read() ([]event, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	paths, err := filepath.Glob(filepath.Join(l.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if l.files == nil {
		l.files = map[string]*ledgerFile{}
	}
	for _, p := range paths {
		lf := l.files[p]
		if lf == nil {
			lf = &ledgerFile{}
			l.files[p] = lf
		}
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.NewSectionReader(f, lf.off, 1<<40))
		f.Close()
		if err != nil {
			return nil, err
		}
		lf.off += int64(len(b))
		b = append(lf.tail, b...)
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				break
			}
			var e event
			if json.Unmarshal(b[:i], &e) == nil {
				l.evs = append(l.evs, e)
			}
			b = b[i+1:]
		}
		lf.tail = append([]byte(nil), b...)
	}
	return l.evs[:len(l.evs):len(l.evs)], nil
}
