// Package static holds the site's CSS, scripts and images, embedded into the binary and served
// under content-hashed names so browsers may cache them for a year.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed css js img vendor
var files embed.FS

// Prefix is the URL path under which assets are served.
const Prefix = "/static/"

// Assets maps logical asset names ("css/app.css") to content-hashed URLs and serves them.
type Assets struct {
	fsys    fs.FS
	hashed  map[string]string // logical name -> URL path
	logical map[string]string // hashed file name (without prefix) -> logical name
	etags   map[string]string // logical name -> strong ETag of the content
}

// New indexes the embedded files. It fails only if the embedded tree is unreadable.
func New() (*Assets, error) { return newAssets(files) }

func newAssets(fsys fs.FS) (*Assets, error) {
	a := &Assets{fsys: fsys, hashed: map[string]string{}, logical: map[string]string{}, etags: map[string]string{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return fmt.Errorf("read asset %s: %w", p, err)
		}
		sum := sha256.Sum256(b)
		hash := hex.EncodeToString(sum[:])
		ext := path.Ext(p)
		name := strings.TrimSuffix(p, ext) + "." + hash[:12] + ext
		a.hashed[p] = Prefix + name
		a.logical[name] = p
		a.etags[p] = `"` + hash[:32] + `"` // as etag.Of(b): the first 128 bits of the same sum
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index static assets: %w", err)
	}
	return a, nil
}

// Path returns the hashed URL of a logical asset name. An unknown name returns a path that
// answers 404, so a typo shows up in tests instead of silently loading nothing.
func (a *Assets) Path(name string) string {
	if p, ok := a.hashed[name]; ok {
		return p
	}
	return Prefix + "missing/" + name
}

// ServeHTTP serves a hashed asset with a long, immutable cache lifetime and a strong ETag of
// its content; a browser that revalidates anyway (a reload) gets a 304 from http.ServeContent.
// (The site's compression layer takes the tag of a compressed copy back to this one first: see
// etag.StripEncodingSuffixes.) The same content has the same ETag on every replica and after
// every restart, so there is no Last-Modified (it would be the start time). The request path
// is relative to Prefix.
func (a *Assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, Prefix)
	logical, ok := a.logical[name]
	if !ok {
		http.NotFound(w, r)
		return
	}
	f, err := a.fsys.Open(logical)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	rs, ok := f.(interface {
		Read([]byte) (int, error)
		Seek(int64, int) (int64, error)
	})
	if !ok {
		http.Error(w, "asset not seekable", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("ETag", a.etags[logical])
	http.ServeContent(w, r, logical, time.Time{}, rs)
}
