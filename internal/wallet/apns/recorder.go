package apns

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// RecordedPush is one request the Recorder received.
type RecordedPush struct {
	Token      string
	Topic      string
	PushType   string
	Priority   string
	Header     http.Header
	Body       []byte
	ProtoMajor int
	Status     int // what the Recorder answered
	At         time.Time
}

// Recorder stands in for APNs in tests and the sandbox: an http.Handler that records every
// push and answers 200, or the status it was told to fail the next pushes with. Serve it over
// unencrypted HTTP/2 (http.Server.Protocols) as a Client with an http:// Endpoint expects.
type Recorder struct {
	mu       sync.Mutex
	attempts []RecordedPush
	failures []failure
}

type failure struct {
	status int
	reason string
}

// Serve serves rec on a new loopback port over unencrypted HTTP/2, as a Client with an
// http:// Endpoint speaks it. It returns that endpoint and the function that stops serving.
func (rec *Recorder) Serve() (endpoint string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("apns stand-in: %w", err)
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 5 * time.Second, Protocols: new(http.Protocols)}
	srv.Protocols.SetUnencryptedHTTP2(true) // APNs speaks only HTTP/2
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// NewRecorder is an empty Recorder that accepts every push.
func NewRecorder() *Recorder { return &Recorder{} }

// FailNext makes the next n pushes fail with status and APNs reason (e.g. 503
// "ServiceUnavailable", 410 "Unregistered").
func (rec *Recorder) FailNext(n, status int, reason string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for range n {
		rec.failures = append(rec.failures, failure{status, reason})
	}
}

// Attempts is every push received, failed ones included, oldest first.
func (rec *Recorder) Attempts() []RecordedPush {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.attempts)
}

// Pushes is the pushes answered 200, oldest first.
func (rec *Recorder) Pushes() []RecordedPush {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []RecordedPush
	for _, p := range rec.attempts {
		if p.Status == http.StatusOK {
			out = append(out, p)
		}
	}
	return out
}

// PushesFor is the pushes answered 200 for one device token.
func (rec *Recorder) PushesFor(token string) []RecordedPush {
	var out []RecordedPush
	for _, p := range rec.Pushes() {
		if p.Token == token {
			out = append(out, p)
		}
	}
	return out
}

// Reset forgets what was recorded and any failures still queued.
func (rec *Recorder) Reset() {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.attempts, rec.failures = nil, nil
}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	token, ok := strings.CutPrefix(r.URL.Path, "/3/device/")
	if r.Method != http.MethodPost {
		answer(w, http.StatusMethodNotAllowed, "MethodNotAllowed")
		return
	}
	if !ok || token == "" || strings.Contains(token, "/") {
		answer(w, http.StatusNotFound, "BadPath")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<10)) // APNs's own payload limit
	if err != nil {
		answer(w, http.StatusRequestEntityTooLarge, "PayloadTooLarge")
		return
	}
	p := RecordedPush{
		Token: token, Topic: r.Header.Get("apns-topic"), PushType: r.Header.Get("apns-push-type"),
		Priority: r.Header.Get("apns-priority"), Header: r.Header.Clone(), Body: body,
		ProtoMajor: r.ProtoMajor, At: time.Now(),
	}
	status, reason := http.StatusOK, ""
	switch {
	case p.Topic == "":
		status, reason = http.StatusBadRequest, "MissingTopic"
	case !json.Valid(body):
		status, reason = http.StatusBadRequest, "PayloadEmpty"
	}
	rec.mu.Lock()
	if status == http.StatusOK && len(rec.failures) > 0 {
		status, reason = rec.failures[0].status, rec.failures[0].reason
		rec.failures = rec.failures[1:]
	}
	p.Status = status
	rec.attempts = append(rec.attempts, p)
	n := len(rec.attempts)
	rec.mu.Unlock()
	w.Header().Set("apns-id", fmt.Sprintf("00000000-0000-0000-0000-%012d", n))
	if status == http.StatusOK {
		w.WriteHeader(http.StatusOK)
		return
	}
	answer(w, status, reason)
}

func answer(w http.ResponseWriter, status int, reason string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body := map[string]any{"reason": reason}
	if status == http.StatusGone {
		body["timestamp"] = time.Now().UnixMilli()
	}
	_ = json.NewEncoder(w).Encode(body)
}
