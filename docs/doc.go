// Package docs holds the user guide (the Markdown pages of this directory)
// and the test that checks every code block in it: Go blocks are compiled,
// shell, JavaScript and Ruby blocks syntax-checked, JSON and YAML parsed,
// and links between pages resolved. See docs_test.go for the rules a
// block follows.
package docs
