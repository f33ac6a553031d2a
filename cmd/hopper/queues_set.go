package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/hopperq/hopper"
)

// runQueuesSet changes the settings of queues named by the flags given,
// and keeps the others (Inspector.UpdateQueueConfig).
func runQueuesSet(ctx context.Context, a *app, args []string) error {
	usageLine := "hopper queues set [--redis URL] [--max-running N] [--rate-limit N] ... NAME..."
	fs := newFlags("queues set", usageLine, a.stderr)
	sf := addStoreFlags(fs)
	settings := addConfigFlags(fs)
	names, err := parse(fs, args)
	if err != nil {
		return err
	}
	given := settings.given(fs)
	switch {
	case len(given) == 0:
		return badUsage(fs, "give a setting to change, such as --max-running N (the flags below)")
	case len(names) == 0:
		return badUsage(fs, "give the names of the queues to change")
	}
	ins, closeStore, err := a.openQueues(ctx, fs, sf, names)
	if err != nil {
		return err
	}
	defer closeStore()
	known, err := knownQueues(ctx, ins)
	if err != nil {
		return err
	}
	same, err := settings.check(ctx, fs, ins, names)
	if err != nil {
		return err
	}
	for i, q := range names {
		if !known[q] && same[q] {
			// Writing the defaults would list the queue for nothing.
			fmt.Fprintf(a.stderr, "hopper queues set: no queue is named %s: these are its settings already (the defaults); nothing written\n", q)
			continue
		}
		if err := ins.UpdateQueueConfig(ctx, q, settings.apply); err != nil {
			if i == 0 {
				return flagWords(fs, err)
			}
			// Another operator changed q's settings since check read
			// them, or the store failed: say which queues changed.
			return fmt.Errorf("queue %s: %s; changed already: %s; not changed: %s",
				q, flagText(err), strings.Join(names[:i], ", "), strings.Join(names[i:], ", "))
		}
		fmt.Fprintf(a.stdout, "set %s of %s\n", strings.Join(given, ", "), q)
		if !known[q] {
			newQueue(a, "set", q, "with these settings and no jobs yet")
			known[q] = true
		}
	}
	return nil
}

// check reads the settings of every queue of names and checks what the
// flags would make of them (QueueConfig.NormalizeChange, as
// Inspector.UpdateQueueConfig checks them), before any is
// written: a value that one queue's settings refuse ("--rate-burst 5
// needs --rate-smooth", where that queue's is off) changes no queue. A
// refused value is bad usage, its line naming the queues that refuse it,
// unless every queue does (the value is wrong by itself). same holds the
// queues whose settings the flags leave as they are.
func (c *configFlags) check(ctx context.Context, fs *flag.FlagSet, ins *hopper.Inspector, names []string) (same map[string]bool, err error) {
	same = map[string]bool{}
	var reasons []string               // in the order first met
	refusedBy := map[string][]string{} // reason -> queues
	for _, q := range names {
		st, err := ins.GetQueueStats(ctx, q)
		if err != nil {
			return nil, err
		}
		// From what UpdateQueueConfig changes: an idle rate period
		// older versions stored counts as none.
		from := st.Config.WithoutIdlePeriods()
		cfg := from
		if err := c.apply(&cfg); err != nil {
			return nil, err
		}
		cfg, err = cfg.NormalizeChange(from)
		if err != nil {
			why := flagText(err)
			if refusedBy[why] == nil {
				reasons = append(reasons, why)
			}
			refusedBy[why] = append(refusedBy[why], q)
			continue
		}
		// A queue never set up has a zero RatePeriod, which normalizes
		// to a second.
		if old, err := from.Normalize(); err == nil && old == cfg {
			same[q] = true
		}
	}
	switch {
	case len(reasons) == 0:
		return same, nil
	case len(names) == 1:
		return nil, badUsage(fs, "%s", reasons[0])
	case len(reasons) == 1 && len(refusedBy[reasons[0]]) == len(names):
		return nil, badUsage(fs, "%s; no queue was changed", reasons[0])
	}
	parts := make([]string, len(reasons))
	for i, why := range reasons {
		qs := refusedBy[why]
		if len(qs) == 1 {
			parts[i] = "queue " + qs[0] + ": " + why
		} else {
			parts[i] = "queues " + strings.Join(qs, ", ") + ": " + why
		}
	}
	return nil, badUsage(fs, "%s; no queue was changed", strings.Join(parts, "; "))
}

// configFlags are the flags of queues set: one per field of QueueConfig,
// found by reflection (MaxRunning is --max-running), so that a field added
// to QueueConfig gets its flag.
type configFlags struct {
	values hopper.QueueConfig // the flags' values, written by fs
	byFlag map[string]int     // flag name -> field index
	set    []int              // fields of the flags given, after given
}

// addConfigFlags defines a flag on fs for every field of QueueConfig.
func addConfigFlags(fs *flag.FlagSet) *configFlags {
	c := &configFlags{byFlag: map[string]int{}}
	v := reflect.ValueOf(&c.values).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name := kebab(f.Name)
		// What zero means differs by field (none, or a default):
		// QueueConfig's doc says, and the flag's help points there.
		usage := "set QueueConfig." + f.Name + " (see go doc github.com/hopperq/hopper/store.QueueConfig)"
		switch p := v.Field(i).Addr().Interface().(type) {
		case *bool:
			fs.BoolVar(p, name, false, usage)
		case *int:
			fs.IntVar(p, name, 0, usage)
		case *time.Duration:
			fs.DurationVar(p, name, 0, usage)
		default:
			panic("hopper: queues set has no flag for QueueConfig." + f.Name + " of type " + f.Type.String())
		}
		c.byFlag[name] = i
	}
	return c
}

// given records which of the flags fs parsed were given and returns their
// names.
func (c *configFlags) given(fs *flag.FlagSet) []string {
	var names []string
	fs.Visit(func(f *flag.Flag) {
		if i, ok := c.byFlag[f.Name]; ok {
			c.set = append(c.set, i)
			names = append(names, f.Name)
		}
	})
	return names
}

// apply sets the fields of the flags given in cfg, and leaves the others.
func (c *configFlags) apply(cfg *hopper.QueueConfig) error {
	dst, src := reflect.ValueOf(cfg).Elem(), reflect.ValueOf(c.values)
	for _, i := range c.set {
		dst.Field(i).Set(src.Field(i))
	}
	return nil
}

// configField matches a field of QueueConfig in an error's text, with its
// type's name or without ("QueueConfig.RateBurst 5 needs RateSmooth").
var configField = func() *regexp.Regexp {
	t := reflect.TypeFor[hopper.QueueConfig]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return regexp.MustCompile(`\b(?:QueueConfig\.)?(` + strings.Join(names, "|") + `)\b`)
}()

// flagWords words a QueueConfig the store refused by the flags of queues
// set, as bad usage: "--max-running -1 is negative", not "hopper: invalid
// config: QueueConfig.MaxRunning -1 is negative". Other errors are
// returned as they are.
func flagWords(fs *flag.FlagSet, err error) error {
	if !errors.Is(err, hopper.ErrInvalidConfig) {
		return err
	}
	return badUsage(fs, "%s", flagText(err))
}

// flagText is the text of an error wrapping ErrInvalidConfig in the words
// of queues set's flags: "--max-running -1 is negative".
func flagText(err error) string {
	msg := strings.TrimPrefix(errText(err), errText(hopper.ErrInvalidConfig)+": ")
	return configField.ReplaceAllStringFunc(msg, func(m string) string {
		return "--" + kebab(strings.TrimPrefix(m, "QueueConfig."))
	})
}

// kebab turns a Go field name into a flag name: MaxRunning is max-running.
func kebab(name string) string {
	var b strings.Builder
	for i, r := range name {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('-')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
