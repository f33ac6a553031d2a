package dashboard

import "testing"

// The user's first frame is the first one below the runtime's, the panic's
// and hopper's own: its function and file lines are marked, and named.
func TestStackViewMarksTheUsersFrame(t *testing.T) {
	stack := "goroutine 12 [running]:\n" +
		"runtime/debug.Stack()\n\t/usr/lib/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"github.com/hopperq/hopper/middleware.Recover.func1.1()\n\t/src/hopper/middleware/recover.go:31 +0x45\n" +
		"panic({0x7a1b60?, 0xc0000a6020?})\n\t/usr/lib/go/src/runtime/panic.go:792 +0x132\n" +
		"example.com/app/billing.(*Charger).Charge(0xc0000b4000, {0x8c5f20, 0xc0000a8000})\n\t/app/billing/charge.go:57 +0x1a\n" +
		"example.com/app/billing.Handle(...)\n\t/app/billing/handle.go:12\n"
	v := newStackView(stack)
	if want := "example.com/app/billing.(*Charger).Charge at charge.go:57"; v.First != want {
		t.Errorf("First = %q, want %q", v.First, want)
	}
	var marked []string
	for _, l := range v.Lines {
		if l.User {
			marked = append(marked, l.Text)
		}
	}
	if len(marked) != 2 || marked[0] != "example.com/app/billing.(*Charger).Charge(0xc0000b4000, {0x8c5f20, 0xc0000a8000})" ||
		marked[1] != "\t/app/billing/charge.go:57 +0x1a" {
		t.Errorf("marked %q, want the Charge frame's two lines", marked)
	}
	if v := newStackView("goroutine 1 [running]:\nruntime/debug.Stack()\n\t/x/stack.go:1"); v.First != "" {
		t.Errorf("a stack of the runtime only names %q as the user's frame", v.First)
	}
}
