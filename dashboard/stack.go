package dashboard

import "strings"

// stackView is a recorded stack with the first frame of the user's code
// marked: the frames before it are the runtime's, the panic's and
// hopper's own (the recovery that took the stack).
type stackView struct {
	Lines []stackLine
	First string // "pkg.Func at file.go:42", "" when no frame is the user's
}

// stackLine is one line of a stack; User marks the two lines (function and
// file) of the user's first frame.
type stackLine struct {
	Text string
	User bool
}

// notUserCode are the function prefixes of frames that are not the user's.
var notUserCode = []string{"runtime.", "runtime/", "panic(", "github.com/hopperq/hopper.", "github.com/hopperq/hopper/",
	"golang.org/x/sync/", "created by ", "goroutine "}

// newStackView splits stack (as runtime/debug.Stack writes it) into lines
// and marks the user's first frame.
func newStackView(stack string) stackView {
	lines := strings.Split(strings.TrimRight(stack, "\n"), "\n")
	v := stackView{Lines: make([]stackLine, len(lines))}
	marked := false
	for i, l := range lines {
		v.Lines[i].Text = l
		if marked || l == "" || strings.HasPrefix(l, "\t") || isNotUserCode(l) {
			continue
		}
		marked = true
		v.Lines[i].User = true
		v.First = funcName(l)
		if i+1 < len(lines) && strings.HasPrefix(lines[i+1], "\t") {
			v.Lines[i+1].User = true
			file, _, _ := strings.Cut(strings.TrimSpace(lines[i+1]), " +0x")
			if slash := strings.LastIndexByte(file, '/'); slash >= 0 {
				file = file[slash+1:]
			}
			v.First += " at " + file
		}
	}
	return v
}

func isNotUserCode(l string) bool {
	for _, p := range notUserCode {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// funcName is a stack's function line without its arguments.
func funcName(l string) string {
	if i := strings.LastIndexByte(l, '('); i > 0 {
		return l[:i]
	}
	return l
}
