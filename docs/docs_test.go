package docs

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The rules every code block of the guide follows. The block's info string
// says how it is checked:
//
//   - go: compiled in this module (see gocheck_test.go). A block that
//     starts with a package clause is a whole file, built alone. Any other
//     block is a fragment: all fragments of a page form one package;
//     fragments that start with a declaration (func, type, var, const,
//     import) go at file scope, fragments of statements run in order in
//     one function, in which ctx, client (*hopper.Client), rdb
//     (*redis.Client), insp (*hopper.Inspector) and err are in scope.
//     Imports are added as goimports would. A fragment whose first line
//     is "// asynq" or "// river" is peer code: it is compiled in a
//     package of its own against that system's module.
//   - sh, bash, shell: bash -n.
//   - js, javascript: node --check, as an ES module.
//   - ruby, rb: ruby -c.
//   - json: parsed. yaml, yml: parsed.
//   - text, console, promql, sql, mermaid: shown, not checked.
//
// A block with no info string, or one not listed, fails: say what it is.

// shown are the info strings of blocks that are not code.
var shown = map[string]bool{"text": true, "console": true, "promql": true, "sql": true, "mermaid": true}

// TestCodeBlocks checks every code block of every page.
func TestCodeBlocks(t *testing.T) {
	var goBlocks []block
	for _, page := range pages(t) {
		for _, b := range parseBlocks(t, page) {
			switch b.info {
			case "go":
				goBlocks = append(goBlocks, b)
			case "sh", "bash", "shell":
				t.Run(b.where(), func(t *testing.T) { checkTool(t, b, "bash", ".sh", "-n") })
			case "js", "javascript":
				t.Run(b.where(), func(t *testing.T) { checkTool(t, b, "node", ".mjs", "--check") })
			case "ruby", "rb":
				t.Run(b.where(), func(t *testing.T) { checkTool(t, b, "ruby", ".rb", "-c") })
			case "json":
				if !json.Valid([]byte(b.code)) {
					var v any
					err := json.Unmarshal([]byte(b.code), &v)
					t.Errorf("%s: the JSON block does not parse: %v", b.where(), err)
				}
			case "yaml", "yml":
				var v any
				if err := yaml.Unmarshal([]byte(b.code), &v); err != nil {
					t.Errorf("%s: the YAML block does not parse: %v", b.where(), err)
				}
			case "":
				t.Errorf("%s: a code block with no info string: name its language (go, sh, js, ruby, json, yaml) or text", b.where())
			default:
				if !shown[b.info] {
					t.Errorf("%s: a code block of unknown kind %q: use go, sh, js, ruby, json, yaml, or text for what is only shown", b.where(), b.info)
				}
			}
		}
	}
	t.Run("go", func(t *testing.T) { checkGo(t, goBlocks) })
}

// checkTool writes the block to a file with the extension ext and runs the
// tool with args on it. A missing tool skips the block, or fails it under
// CI.
func checkTool(t *testing.T, b block, tool, ext string, args ...string) {
	path, err := exec.LookPath(tool)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s: %s is not installed (CI installs it in .ci/run)", b.where(), tool)
		}
		t.Skipf("%s: %s is not installed", b.where(), tool)
	}
	file := filepath.Join(t.TempDir(), "block"+ext)
	if err := os.WriteFile(file, []byte(b.code), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(path, append(args, file)...).CombinedOutput()
	if err != nil {
		t.Errorf("%s: %s %s: %v\n%s", b.where(), tool, strings.Join(args, " "), err, strings.ReplaceAll(string(out), file, b.where()))
	}
}
