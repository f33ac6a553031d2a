package main

import (
	"fmt"
	"testing"

	"github.com/hopperq/hopper"
	"github.com/hopperq/hopper/redisstore"
)

func TestVersion(t *testing.T) {
	run1 := func(args ...string) result {
		var stdout, stderr syncBuffer
		code := run(t.Context(), &app{stdout: &stdout, stderr: &stderr}, args)
		return result{code, stdout.String(), stderr.String()}
	}
	r := run1("version")
	wantCode(t, r, 0, "version")
	wantOut(t, r.stdout, "version", "hopper "+hopper.Version+" ", fmt.Sprintf("Redis layout %d", redisstore.LayoutVersion))
	wantCode(t, run1("version", "extra"), 2, "version extra")
}
