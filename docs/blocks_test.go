package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// block is one fenced code block of a page.
type block struct {
	page string // file name, such as "workflows.md"
	line int    // line of the block's first code line (after the fence)
	info string // the info string's first word, lower-cased
	code string
}

// where names the block for messages: page:line.
func (b block) where() string { return b.page + ":" + strconv.Itoa(b.line) }

// pages returns the guide's Markdown pages, sorted.
func pages(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no Markdown pages in docs/")
	}
	return files
}

// fence matches an opening or closing fence, indented up to a list item's
// indentation: the fence characters and the info string.
var fence = regexp.MustCompile("^(\\s*)(```+|~~~+)\\s*(.*)$")

// parseBlocks returns the fenced code blocks of a page. An unclosed fence
// is an error.
func parseBlocks(t *testing.T, page string) []block {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var (
		out    []block
		open   bool
		indent string
		marker string
		cur    block
		body   strings.Builder
	)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		m := fence.FindStringSubmatch(line)
		if !open {
			if m == nil {
				continue
			}
			open, indent, marker = true, m[1], m[2]
			info := strings.Fields(m[3])
			cur = block{page: page, line: n + 1}
			if len(info) > 0 {
				cur.info = strings.ToLower(info[0])
			}
			body.Reset()
			continue
		}
		if m != nil && strings.HasPrefix(m[2], marker[:1]) && len(m[2]) >= len(marker) && m[3] == "" {
			cur.code = body.String()
			out = append(out, cur)
			open = false
			continue
		}
		body.WriteString(strings.TrimPrefix(line, indent))
		body.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if open {
		t.Errorf("%s: a code block opened at line %d is never closed", page, cur.line-1)
	}
	return out
}
