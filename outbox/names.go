package outbox

import (
	"fmt"
	"strings"

	"github.com/hopperq/hopper"
)

// DefaultTable is the outbox table when Config.Table is empty.
const DefaultTable = "hopper_outbox"

// maxTableLen bounds Config.Table so that every derived name (the NOTIFY
// channel is the whole name) fits PostgreSQL's 63-byte identifiers.
const maxTableLen = 56

// Names are the SQL names of one outbox's objects, derived from its table
// name: for "hopper_outbox", the table hopper_outbox, the dead-letter
// table hopper_outbox_dead, the trigger function hopper_outbox_notify()
// (in the table's schema), its trigger hopper_outbox_notify and the NOTIFY
// channel hopper_outbox (the table as written, without a "public."
// schema). Table, Dead and Function are quoted identifiers, ready for
// statements; Trigger and Channel are plain.
type Names struct {
	Table, Dead, Function, Trigger, Channel string
}

// NamesOf checks a table name ("" means DefaultTable) and derives the
// names of the outbox's objects. A table name is one or two dot-separated
// parts (a schema may come first) of lower-case ASCII letters, digits and
// '_', not starting with a digit, at most 56 bytes in all; otherwise the
// error wraps hopper.ErrInvalidConfig.
func NamesOf(table string) (Names, error) {
	if table == "" {
		table = DefaultTable
	}
	parts := strings.Split(table, ".")
	if len(parts) > 2 || len(table) > maxTableLen {
		return Names{}, fmt.Errorf("%w: outbox table %q: at most a schema and a table, %d bytes in all", hopper.ErrInvalidConfig, table, maxTableLen)
	}
	for _, p := range parts {
		if !plainIdent(p) {
			return Names{}, fmt.Errorf("%w: outbox table %q: each part must be lower-case letters, digits and '_', not starting with a digit", hopper.ErrInvalidConfig, table)
		}
	}
	last := parts[len(parts)-1]
	quote := func(suffix string) string {
		q := make([]string, len(parts))
		for i, p := range parts {
			q[i] = `"` + p + `"`
		}
		q[len(q)-1] = `"` + last + suffix + `"`
		return strings.Join(q, ".")
	}
	return Names{
		Table:    quote(""),
		Dead:     quote("_dead"),
		Function: quote("_notify"),
		Trigger:  last + "_notify",
		// "public.x" is x, the way most write it: the writers' trigger
		// and the relays must name one channel (a relay told
		// public.hopper_outbox heard nothing and polled).
		Channel: strings.TrimPrefix(table, "public."),
	}, nil
}

func plainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c == '_' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}
