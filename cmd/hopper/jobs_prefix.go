package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/store"
)

// maxCandidates bounds the jobs an ID prefix several jobs have lists.
const maxCandidates = 20

// resolveJob returns the job that id names, as the dashboard's search
// (/find) takes it: the job with that ID, in queue or with queue empty in
// the one queue that has one; else the one job whose ID starts with id,
// in any state. A whole ID jobs of several queues have, and a start
// several IDs share, are errors listing them (at most maxCandidates).
func resolveJob(ctx context.Context, ins *hopper.Inspector, queue, id string) (*hopper.JobRecord, error) {
	queues := []string{queue}
	where := "in queue " + queue
	if queue == "" {
		var err error
		if queues, err = ins.ListQueues(ctx); err != nil {
			return nil, err
		}
		where = "in any queue"
	}
	if found, err := jobsWithID(ctx, ins, queues, id); err != nil || len(found) > 0 {
		return oneJob(id, found, err)
	}
	found, err := jobsWithPrefix(ctx, ins, queues, id)
	switch {
	case err != nil:
		return nil, err
	case len(found) == 1:
		return found[0], nil
	case len(found) == 0:
		return nil, fmt.Errorf("no job %q %s, nor one whose ID starts with it", id, where)
	}
	var b strings.Builder
	n := fmt.Sprint(len(found))
	if len(found) > maxCandidates {
		found, n = found[:maxCandidates], fmt.Sprintf("more than %d", maxCandidates)
	}
	fmt.Fprintf(&b, "%q starts the IDs of %s jobs: give more of it, or the whole ID\n", id, n)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, j := range found {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", j.ID, j.Queue, j.State, j.Kind)
	}
	tw.Flush()
	return nil, errors.New(strings.TrimSuffix(b.String(), "\n"))
}

// jobsWithID returns the jobs of queues whose ID is id: IDs are unique per
// queue only, so several queues may hold one. A job met twice, under a
// partitioned queue's name and its partition's, counts once.
func jobsWithID(ctx context.Context, ins *hopper.Inspector, queues []string, id string) ([]*hopper.JobRecord, error) {
	var found []*hopper.JobRecord
	seen := map[string]bool{}
	for _, q := range queues {
		j, err := ins.GetJob(ctx, q, id)
		if errors.Is(err, hopper.ErrJobNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !seen[j.Queue] {
			seen[j.Queue] = true
			found = append(found, j)
		}
	}
	return found, nil
}

// oneJob returns the one job of found (jobsWithID's, with its err), or
// with several an error listing them and asking for --queue: a command
// that looked for id in every queue acts on none of them. found is not
// empty unless err is set.
func oneJob(id string, found []*hopper.JobRecord, err error) (*hopper.JobRecord, error) {
	switch {
	case err != nil:
		return nil, err
	case len(found) == 1:
		return found[0], nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "jobs of %d queues have the ID %q: give --queue to say which\n", len(found), id)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, j := range found {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", j.ID, j.Queue, j.State, j.Kind)
	}
	tw.Flush()
	return nil, errors.New(strings.TrimSuffix(b.String(), "\n"))
}

// jobsWithPrefix looks through every state of queues for the jobs whose
// IDs start with prefix, up to maxCandidates+1 of them (a job met twice,
// as it moved between states, counts once).
func jobsWithPrefix(ctx context.Context, ins *hopper.Inspector, queues []string, prefix string) ([]*hopper.JobRecord, error) {
	var found []*hopper.JobRecord
	seen := map[[2]string]bool{}
	for _, q := range queues {
		for _, st := range store.States {
			for from := 0; ; {
				sp, err := ins.SearchJobs(ctx, hopper.SearchJobsOpts{
					Queue: q, State: st, IDPrefix: prefix, From: from, Limit: maxCandidates + 1 - len(found),
				})
				if err != nil {
					return nil, err
				}
				for _, j := range sp.Jobs {
					if key := [2]string{j.Queue, j.ID}; !seen[key] {
						seen[key] = true
						found = append(found, j)
					}
				}
				if len(found) > maxCandidates {
					return found, nil
				}
				if sp.Done() || sp.Next <= from {
					break
				}
				from = sp.Next
			}
		}
	}
	return found, nil
}
