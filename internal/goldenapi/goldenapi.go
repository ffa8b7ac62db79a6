// Package goldenapi is a small stand-in for the real ticketing API, written
// from upstream-notes and not from our sandbox: it answers every operation
// with its golden reply body (internal/upstream/testdata/golden), found by
// the real method and path, and records what each request carried. Tests use
// it to prove that the client and the pages work from answers shaped like the
// real service's, including every field our sandbox does not send.
package goldenapi

import (
	"io"
	"io/fs"
	"net/http"
	"sync"

	"github.com/cinemabff/cinemabff/internal/upstream"
)

// Server serves golden replies. It is stateless: the same operation always
// gets the same reply, unless Use picks a variant.
type Server struct {
	files fs.FS
	token string

	mu      sync.Mutex
	variant map[string]string // operation → reply variant ("seattaken": <op>.reply.seattaken.json)
	status  map[string]int    // operation → HTTP status to answer with
	bodies  map[string][]byte // operation → last request body
	queries map[string]string // operation → last raw query
	calls   map[string]int
}

// New serves the golden bodies in files (the folder testdata/golden).
// Requests without the token in the connectapitoken header get 401/403.
func New(files fs.FS, token string) *Server {
	return &Server{files: files, token: token, variant: map[string]string{}, status: map[string]int{},
		bodies: map[string][]byte{}, queries: map[string]string{}, calls: map[string]int{}}
}

// OperationOf finds the operation whose default route matches a request.
func OperationOf(method, path string) string { return upstream.DefaultPaths().Operation(method, path) }

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch tok := r.Header.Get("connectapitoken"); {
	case tok == "":
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"missing connectapitoken"}`)
		return
	case tok != s.token:
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"token refused"}`)
		return
	}
	op := OperationOf(r.Method, r.URL.Path)
	if op == "" {
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"Result":4,"ExtendedResultCode":0,"ErrorDescription":"unknown path"}`)
		return
	}
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.bodies[op], s.queries[op] = b, r.URL.RawQuery
	s.calls[op]++
	name, status := op+".reply.json", s.status[op]
	if v := s.variant[op]; v != "" {
		name = op + ".reply." + v + ".json"
	}
	s.mu.Unlock()
	body, err := fs.ReadFile(s.files, name)
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `{"Result":1,"ErrorDescription":"no golden reply `+name+`"}`)
		return
	}
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(body)
}

// Use answers op with a reply variant ("" for the plain reply) and an HTTP
// status (0 for 200).
func (s *Server) Use(op, variant string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.variant[op], s.status[op] = variant, status
}

// Body is the last request body of op.
func (s *Server) Body(op string) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[op]
}

// Query is the last raw query of op.
func (s *Server) Query(op string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[op]
}

// Calls counts the requests of op.
func (s *Server) Calls(op string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[op]
}
