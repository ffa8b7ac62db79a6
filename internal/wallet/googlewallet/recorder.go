package googlewallet

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
)

// objectsPath is where the Google Wallet API keeps event ticket objects, below its base URL.
const objectsPath = "/walletobjects/v1/eventTicketObject/"

// tokenPath is where the Recorder hands out access tokens, below its own address.
const tokenPath = "/token"

// RecordedCall is one API call the Recorder answered.
type RecordedCall struct {
	Method   string
	ObjectID string
	Object   *googlepass.Object // what a PATCH sent; nil otherwise
	Status   int
	At       time.Time
}

// Recorder stands in for the Google Wallet API and Google's OAuth token endpoint in tests and
// the sandbox. It hands out an access token for a JWT grant (verified when Key is set), refuses
// object calls without one, and records every object call. Point Options.BaseURL at its
// address and Options.TokenURL at that address + "/token".
type Recorder struct {
	// Key, when set, is the service account's public key: a grant signed by another is refused.
	Key *rsa.PublicKey

	mu       sync.Mutex
	tokens   map[string]bool
	calls    []RecordedCall
	failures []int
}

// NewRecorder is an empty Recorder.
func NewRecorder(key *rsa.PublicKey) *Recorder {
	return &Recorder{Key: key, tokens: map[string]bool{}}
}

// FailNext makes the next n object calls fail with status.
func (rec *Recorder) FailNext(n, status int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for range n {
		rec.failures = append(rec.failures, status)
	}
}

// Calls is every object call answered, oldest first.
func (rec *Recorder) Calls() []RecordedCall {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.calls)
}

// Patches is the patches of the object with that id answered 200, oldest first.
func (rec *Recorder) Patches(id string) []*googlepass.Object {
	var out []*googlepass.Object
	for _, c := range rec.Calls() {
		if c.Method == http.MethodPatch && c.ObjectID == id && c.Status == http.StatusOK {
			out = append(out, c.Object)
		}
	}
	return out
}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == tokenPath {
		rec.grant(w, r)
		return
	}
	id, ok := strings.CutPrefix(r.URL.Path, objectsPath)
	if !ok || id == "" || strings.Contains(id, "/") {
		apiError(w, http.StatusNotFound, "NOT_FOUND", "no such resource")
		return
	}
	bearer, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	rec.mu.Lock()
	known := rec.tokens[bearer]
	rec.mu.Unlock()
	if !known {
		apiError(w, http.StatusUnauthorized, "UNAUTHENTICATED", "request had invalid authentication credentials")
		return
	}
	call := RecordedCall{Method: r.Method, ObjectID: id, Status: http.StatusOK, At: time.Now()}
	switch r.Method {
	case http.MethodPatch:
		var o googlepass.Object
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
		if err == nil {
			err = json.Unmarshal(body, &o)
		}
		if err != nil || (o.ID != "" && o.ID != id) {
			call.Status = http.StatusBadRequest
		}
		call.Object = &o
	case http.MethodGet:
	default:
		call.Status = http.StatusMethodNotAllowed
	}
	rec.mu.Lock()
	if call.Status == http.StatusOK && len(rec.failures) > 0 {
		call.Status, rec.failures = rec.failures[0], rec.failures[1:]
	}
	rec.calls = append(rec.calls, call)
	rec.mu.Unlock()
	if call.Status != http.StatusOK {
		apiError(w, call.Status, http.StatusText(call.Status), "the stand-in refused the call")
		return
	}
	answer := call.Object
	if answer == nil {
		answer = &googlepass.Object{}
	}
	answer.ID, answer.Kind = id, "walletobjects#eventTicketObject"
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(answer)
}

// grant answers OAuth's JWT bearer grant (RFC 7523) as Google's token endpoint does.
func (rec *Recorder) grant(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.ParseForm() != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		oauthError(w, "unsupported_grant_type")
		return
	}
	assertion := r.PostForm.Get("assertion")
	var err error
	if rec.Key != nil {
		_, err = jwt.Parse(assertion, func(*jwt.Token) (any, error) { return rec.Key, nil }, jwt.WithValidMethods([]string{"RS256"}))
	} else {
		_, _, err = jwt.NewParser().ParseUnverified(assertion, jwt.MapClaims{})
	}
	if err != nil {
		oauthError(w, "invalid_grant")
		return
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	token := "standin-" + hex.EncodeToString(b)
	rec.mu.Lock()
	rec.tokens[token] = true
	rec.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 3600})
}

func oauthError(w http.ResponseWriter, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusBadRequest)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code})
}

// apiError answers in the shape Google's APIs use, which the Client reads.
func apiError(w http.ResponseWriter, status int, reason, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"code": status, "status": reason, "message": fmt.Sprintf("%s (%s)", message, reason),
	}})
}
