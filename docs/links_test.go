package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link matches a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan matches inline code, whose text is not a link: `f[T](ctx)`.
var codeSpan = regexp.MustCompile("`[^`]*`")

// TestLinks checks that every relative link of every page names a file or
// directory that exists (anchors are not checked).
func TestLinks(t *testing.T) {
	for _, page := range pages(t) {
		src, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		inCode := false
		for i, line := range strings.Split(string(src), "\n") {
			if fence.MatchString(line) {
				inCode = !inCode
				continue
			}
			if inCode {
				continue
			}
			for _, m := range link.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, "``"), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
					continue
				}
				target, _, _ = strings.Cut(target, "#")
				if _, err := os.Stat(filepath.FromSlash(target)); err != nil {
					t.Errorf("%s:%d: the link to %s leads nowhere", page, i+1, m[1])
				}
			}
		}
	}
}
