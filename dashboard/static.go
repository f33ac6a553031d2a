package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var staticFS embed.FS

// staticVersion is a digest of the embedded static files. Their URLs carry
// it, so browsers may cache them for long and still get new ones after an
// upgrade.
var staticVersion = func() string {
	h := sha256.New()
	err := fs.WalkDir(staticFS, "static", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(path)
		h.Write([]byte(path))
		h.Write(b)
		return err
	})
	if err != nil {
		panic("dashboard: reading embedded static files: " + err.Error())
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}()

// staticPath returns the function templates call to link a static file.
func staticPath(prefix string) func(name string) string {
	return func(name string) string {
		return prefix + "/static/" + name + "?v=" + staticVersion
	}
}

// staticHandler serves the embedded files under /static/, cacheable for a
// day (their URLs change when they do). Directories are not listed.
func staticHandler() http.Handler {
	files := http.FileServerFS(staticFS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "private, max-age=86400")
		files.ServeHTTP(w, r)
	})
}
