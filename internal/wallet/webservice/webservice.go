// Package webservice is Apple's PassKit web service: the endpoints under a pass's
// webServiceURL through which Wallet registers a device for pass updates, asks which passes
// changed, fetches the latest pass and sends its logs. It is a plain http.Handler over the
// small interfaces it uses, to be mounted wherever the web app decides (http.StripPrefix).
package webservice

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cinemabff/cinemabff/internal/wallet/passes"
)

// The routes, as Apple names them (relative to webServiceURL).
const (
	RouteRegistration   = "/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}"
	RouteUpdatedSerials = "/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}"
	RoutePass           = "/v1/passes/{passTypeIdentifier}/{serialNumber}"
	RouteLog            = "/v1/log"
)

// PkpassType is the media type of a pass.
const PkpassType = "application/vnd.apple.pkpass"

// Body limits: a registration is one short token; logs are a few lines from one device (the
// endpoint takes no token, so what one post can put into the log is small; how many posts are
// taken is the mounting site's limit).
const (
	maxRegistrationBody = 4 << 10
	maxLogBody          = 8 << 10
	maxLogLines         = 10
	maxLogLine          = 500
	maxIdentifier       = 256
)

// Registry is what the service needs of the pass store (*passes.Store). Authenticate answers
// passes.ErrUnauthorized or passes.ErrUnknownPass for a token that does not open the pass.
type Registry interface {
	Authenticate(ctx context.Context, passType, serial, token string) error
	Register(ctx context.Context, device, pushToken, passType, serial string) (created bool, err error)
	Unregister(ctx context.Context, device, passType, serial string) error
	SerialsUpdatedSince(ctx context.Context, device, passType, tag string) (serials []string, lastUpdated string, err error)
	LastModified(ctx context.Context, passType, serial string) (time.Time, error)
}

// PassSource builds the current .pkpass of a pass (implemented by the pass signing package).
type PassSource interface {
	LatestPass(ctx context.Context, passType, serial string) (pkpass []byte, modified time.Time, err error)
}

// Service is the web service's handler.
type Service struct {
	registry Registry
	source   PassSource
	log      *slog.Logger
	mux      *http.ServeMux
}

// New is the web service over registry and source; logger gets device logs and server errors.
func New(registry Registry, source PassSource, logger *slog.Logger) *Service {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Service{registry: registry, source: source, log: logger, mux: http.NewServeMux()}
	s.mux.HandleFunc("POST "+RouteRegistration, s.RegisterDevice)
	s.mux.HandleFunc("DELETE "+RouteRegistration, s.UnregisterDevice)
	s.mux.HandleFunc("GET "+RouteUpdatedSerials, s.UpdatedSerials)
	s.mux.HandleFunc("GET "+RoutePass, s.LatestPass)
	s.mux.HandleFunc("POST "+RouteLog, s.DeviceLog)
	return s
}

func (s *Service) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// passPath is a request's pass type and serial number, checked to be sane identifiers.
func passPath(r *http.Request) (passType, serial string, ok bool) {
	passType, serial = r.PathValue("passTypeIdentifier"), r.PathValue("serialNumber")
	return passType, serial, identifier(passType) && identifier(serial)
}

func identifier(s string) bool {
	return s != "" && len(s) <= maxIdentifier && !strings.ContainsFunc(s, unicode.IsControl)
}

// authorized checks the request's "ApplePass <token>" against the pass and answers 401 (or 500)
// itself when it does not open it. An unknown pass is 401 too, so serials cannot be probed.
func (s *Service) authorized(w http.ResponseWriter, r *http.Request, passType, serial string) bool {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "ApplePass") || token == "" {
		http.Error(w, "missing ApplePass authorization", http.StatusUnauthorized)
		return false
	}
	err := s.registry.Authenticate(r.Context(), passType, serial, strings.TrimSpace(token))
	switch {
	case err == nil:
		return true
	case errors.Is(err, passes.ErrUnauthorized), errors.Is(err, passes.ErrUnknownPass):
		http.Error(w, "not authorized for this pass", http.StatusUnauthorized)
	default:
		s.fail(w, r, "authenticate pass", err)
	}
	return false
}

// fail logs an unexpected error and answers 500 without its details.
func (s *Service) fail(w http.ResponseWriter, r *http.Request, what string, err error) {
	s.log.ErrorContext(r.Context(), "passkit web service: "+what, "method", r.Method, "pattern", r.Pattern, "err", err)
	http.Error(w, "internal error", http.StatusInternalServerError)
}

// badBody answers a body that could not be read: 413 when too long, else 400.
func badBody(w http.ResponseWriter, err error) {
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		return
	}
	http.Error(w, "request body is not the expected JSON", http.StatusBadRequest)
}

// registration reads a registration's path (device, pass type, serial number) and checks the
// pass's token; on false it has answered 400 or 401.
func (s *Service) registration(w http.ResponseWriter, r *http.Request) (device, passType, serial string, ok bool) {
	passType, serial, ok = passPath(r)
	device = r.PathValue("deviceLibraryIdentifier")
	if !ok || !identifier(device) {
		http.Error(w, "bad device, pass type or serial number", http.StatusBadRequest)
		return "", "", "", false
	}
	return device, passType, serial, s.authorized(w, r, passType, serial)
}

// RegisterDevice registers a device for a pass's updates: 201 when new, 200 when it already
// was (its push token updated), 401 for a wrong token, 400 for a bad body.
func (s *Service) RegisterDevice(w http.ResponseWriter, r *http.Request) {
	device, passType, serial, ok := s.registration(w, r)
	if !ok {
		return
	}
	var body struct {
		PushToken string `json:"pushToken"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxRegistrationBody)).Decode(&body); err != nil {
		badBody(w, err)
		return
	}
	if !pushToken(body.PushToken) {
		http.Error(w, "pushToken must be the device's hexadecimal push token", http.StatusBadRequest)
		return
	}
	created, err := s.registry.Register(r.Context(), device, body.PushToken, passType, serial)
	if err != nil {
		s.fail(w, r, "register device", err)
		return
	}
	if created {
		w.WriteHeader(http.StatusCreated)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// pushToken says whether t looks like an APNs device token: it ends up in a request path.
func pushToken(t string) bool {
	if t == "" || len(t) > 200 {
		return false
	}
	return !strings.ContainsFunc(t, func(r rune) bool {
		return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F')
	})
}

// UnregisterDevice stops a device's updates for a pass: 200 (also when it was not registered),
// 401 for a wrong token.
func (s *Service) UnregisterDevice(w http.ResponseWriter, r *http.Request) {
	device, passType, serial, ok := s.registration(w, r)
	if !ok {
		return
	}
	if err := s.registry.Unregister(r.Context(), device, passType, serial); err != nil {
		s.fail(w, r, "unregister device", err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// updatedSerials is the answer of UpdatedSerials, in Apple's names.
type updatedSerials struct {
	SerialNumbers []string `json:"serialNumbers"`
	LastUpdated   string   `json:"lastUpdated"`
}

// UpdatedSerials lists the device's passes of a type changed since passesUpdatedSince: 200 with
// the serial numbers and the next tag, 204 when none changed. Apple sends no token here.
func (s *Service) UpdatedSerials(w http.ResponseWriter, r *http.Request) {
	device, passType := r.PathValue("deviceLibraryIdentifier"), r.PathValue("passTypeIdentifier")
	if !identifier(device) || !identifier(passType) {
		http.Error(w, "bad device or pass type", http.StatusBadRequest)
		return
	}
	serials, tag, err := s.registry.SerialsUpdatedSince(r.Context(), device, passType, r.URL.Query().Get("passesUpdatedSince"))
	if err != nil {
		s.fail(w, r, "list updated serials", err)
		return
	}
	if len(serials) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(updatedSerials{SerialNumbers: serials, LastUpdated: tag}); err != nil {
		s.log.WarnContext(r.Context(), "passkit web service: write updated serials", "err", err)
	}
}

// LatestPass serves the pass as it is now: 401 for a wrong token, 304 when it has not changed
// since If-Modified-Since (checked before the pass is built and signed), else 200 with
// Last-Modified.
func (s *Service) LatestPass(w http.ResponseWriter, r *http.Request) {
	passType, serial, ok := passPath(r)
	if !ok {
		http.Error(w, "bad pass type or serial number", http.StatusBadRequest)
		return
	}
	if !s.authorized(w, r, passType, serial) {
		return
	}
	modified, err := s.registry.LastModified(r.Context(), passType, serial)
	if err != nil {
		s.fail(w, r, "pass last modified", err)
		return
	}
	modified = modified.Truncate(time.Second)
	if since, err := http.ParseTime(r.Header.Get("If-Modified-Since")); err == nil && !modified.After(since) {
		w.Header().Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
		w.WriteHeader(http.StatusNotModified)
		return
	}
	pkpass, built, err := s.source.LatestPass(r.Context(), passType, serial)
	if err != nil {
		s.fail(w, r, "build pass", err)
		return
	}
	// The source may know of a later change than the registry (a re-signing, say); the later
	// of the two is what the device should compare against next time.
	if built = built.Truncate(time.Second); built.After(modified) {
		modified = built
	}
	h := w.Header()
	h.Set("Content-Type", PkpassType)
	h.Set("Last-Modified", modified.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "private, no-cache") // the pass carries its authentication token
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(pkpass); err != nil {
		s.log.WarnContext(r.Context(), "passkit web service: write pass", "err", err)
	}
}

// DeviceLog takes the messages Wallet sends about problems with our passes and logs them: one
// log record per post, with at most maxLogLines messages of at most maxLogLine bytes each.
func (s *Service) DeviceLog(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Logs []string `json:"logs"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxLogBody)).Decode(&body); err != nil {
		badBody(w, err)
		return
	}
	if len(body.Logs) > 0 {
		s.log.WarnContext(r.Context(), "passkit device log", "messages", logLines(body.Logs), "lines", len(body.Logs))
	}
	w.WriteHeader(http.StatusOK)
}

// logLines is at most maxLogLines of a device's messages, each cut at maxLogLine bytes (on a
// character boundary).
func logLines(logs []string) []string {
	out := make([]string, 0, min(len(logs), maxLogLines))
	for _, line := range logs[:min(len(logs), maxLogLines)] {
		if len(line) > maxLogLine {
			cut := maxLogLine
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			line = line[:cut] + "…"
		}
		out = append(out, line)
	}
	return out
}
