package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Fault is what to do to the calls of one operation. Every part is
// optional; they apply in this order: Latency, then Drop, then HTTPStatus,
// then Result. Times > 0 limits the fault to the next Times calls.
type Fault struct {
	// Operation is an operation name (see Operations) or "*" for all.
	Operation string `json:"operation"`
	// Latency is added before the call is answered (or dropped).
	Latency Duration `json:"latency,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
	// HTTPStatus answers with this status (5xx) and an error envelope.
	HTTPStatus int `json:"httpStatus,omitempty"`
	// Result answers HTTP 200 with this error Result code (and
	// ExtendedResultCode) in the operation's envelope.
	Result             int `json:"result,omitempty"`
	ExtendedResultCode int `json:"extendedResultCode,omitempty"`
	// Times is how many calls the fault still applies to; 0 means until cleared.
	Times int `json:"times,omitempty"`
}

// Faults holds the injected faults. Safe for concurrent use.
type Faults struct {
	mu         sync.Mutex
	rules      map[string]*Fault
	completion *time.Duration
}

func newFaults() *Faults { return &Faults{rules: map[string]*Fault{}} }

// Set installs a fault for its operation, replacing an earlier one.
func (f *Faults) Set(ft Fault) error {
	if ft.Operation != "*" && !slices.Contains(Operations, ft.Operation) {
		return fmt.Errorf("unknown operation %q (one of %s, or *)", ft.Operation, strings.Join(Operations, ", "))
	}
	if ft.HTTPStatus != 0 && (ft.HTTPStatus < 400 || ft.HTTPStatus > 599) {
		return fmt.Errorf("httpStatus %d: use a 4xx or 5xx status", ft.HTTPStatus)
	}
	if ft.Times < 0 || ft.Latency < 0 {
		return errors.New("times and latency must not be negative")
	}
	if ft.Latency == 0 && !ft.Drop && ft.HTTPStatus == 0 && ft.Result == 0 {
		return errors.New("a fault needs latency, drop, httpStatus or result")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules[ft.Operation] = &ft
	return nil
}

// SetCompletionDelay overrides Options.CompletionDelay for payments decided
// from now on; negative means the connector never completes.
func (f *Faults) SetCompletionDelay(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.completion = &d
}

// Clear removes every fault and the completion delay override.
func (f *Faults) Clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.rules)
	f.completion = nil
}

// List returns the active faults, sorted by operation.
func (f *Faults) List() []Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Fault, 0, len(f.rules))
	for _, r := range f.rules {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Operation < out[j].Operation })
	return out
}

func (f *Faults) completionDelay(def time.Duration) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.completion != nil {
		return *f.completion
	}
	return def
}

// take returns the fault for a call of op and uses up one of its Times.
func (f *Faults) take(op string) (Fault, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.rules) == 0 {
		return Fault{}, false
	}
	r, ok := f.rules[op]
	key := op
	if !ok {
		r, ok = f.rules["*"]
		key = "*"
	}
	if !ok {
		return Fault{}, false
	}
	ft := *r
	if r.Times > 0 {
		r.Times--
		if r.Times == 0 {
			delete(f.rules, key)
		}
	}
	return ft, true
}

// inject applies a fault to a call; true means the call was answered.
func (f *Faults) inject(w http.ResponseWriter, r *http.Request, op string, fam family, s *Server) bool {
	ft, ok := f.take(op)
	if !ok {
		return false
	}
	if ft.Latency > 0 {
		// Read the body first, as a real server would have: only then does net/http
		// notice a caller that gives up (its context ends), and the call ends with it. At
		// most one byte over the limit: the handler still refuses a body that is too large.
		// (Body is nil only for a request built with http.NewRequest and handed to
		// ServeHTTP in process, as TestTokenHeaderUncheckedWithoutWrapper does.)
		if r.Body != nil {
			b, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes+1))
			if err != nil {
				return true
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
		}
		t := time.NewTimer(time.Duration(ft.Latency))
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return true
		}
	}
	switch {
	case ft.Drop:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			// HTTP/2 cannot hijack; aborting the handler resets the stream.
			panic(http.ErrAbortHandler)
		}
		_ = conn.Close()
		return true
	case ft.HTTPStatus != 0:
		e := &apiError{status: ft.HTTPStatus, result: resUnexpected, reason: "injected_fault", msg: fmt.Sprintf("injected fault: HTTP %d", ft.HTTPStatus), malformed: true}
		s.write(w, errReply(fam, e))
		return true
	case ft.Result != 0 || ft.ExtendedResultCode != 0:
		e := &apiError{result: ft.Result, ext: ft.ExtendedResultCode, reason: "injected_fault", msg: fmt.Sprintf("injected fault: Result %d", ft.Result)}
		rep := errReply(fam, e)
		rep.status = http.StatusOK
		s.write(w, rep)
		return true
	}
	return false
}

// admin guards the admin endpoints with the same token as the API.
func (s *Server) admin(h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorize(w, r) {
			return
		}
		h(w, r)
	})
}

// faultRequest is the body of POST /sandbox-admin/faults: a fault, a
// completion delay, or both.
type faultRequest struct {
	Fault
	CompletionDelay string `json:"completionDelay,omitempty"` // Go duration or "never"
}

func parseCompletionDelay(v string) (time.Duration, error) {
	if strings.EqualFold(v, "never") {
		return -1, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("completion delay %q: use a duration like 2s or \"never\": %w", v, err)
	}
	return d, nil
}

func (s *Server) handleAdminFaults(w http.ResponseWriter, r *http.Request) {
	adminErr := func(status int, msg string) {
		s.write(w, reply{status: status, body: map[string]string{"error": msg}})
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodDelete:
		s.faults.Clear()
	case http.MethodPost:
		var req faultRequest
		if e := decodeBody(r, &req, false); e != nil {
			adminErr(http.StatusBadRequest, e.msg)
			return
		}
		if req.Operation == "" && req.CompletionDelay == "" {
			adminErr(http.StatusBadRequest, "give operation (with latency, drop, httpStatus, result, times) and/or completionDelay")
			return
		}
		var delay *time.Duration
		if req.CompletionDelay != "" {
			d, err := parseCompletionDelay(req.CompletionDelay)
			if err != nil {
				adminErr(http.StatusBadRequest, err.Error())
				return
			}
			delay = &d
		}
		if req.Operation != "" {
			if err := s.faults.Set(req.Fault); err != nil {
				adminErr(http.StatusBadRequest, err.Error())
				return
			}
		}
		if delay != nil {
			s.faults.SetCompletionDelay(*delay)
		}
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		adminErr(http.StatusMethodNotAllowed, "use GET, POST or DELETE")
		return
	}
	s.write(w, okReply(s.faultState()))
}

type faultState struct {
	Faults          []Fault `json:"faults"`
	CompletionDelay string  `json:"completionDelay"`
}

func (s *Server) faultState() faultState {
	d := s.faults.completionDelay(s.completionDelay)
	cd := d.String()
	if d < 0 {
		cd = "never"
	}
	return faultState{Faults: s.faults.List(), CompletionDelay: cd}
}

func (s *Server) handleAdminStats(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", "GET")
		s.write(w, reply{status: http.StatusMethodNotAllowed, body: map[string]string{"error": "use GET"}})
		return
	}
	calls := map[string]int64{}
	for _, op := range Operations {
		calls[op] = s.Calls(op)
	}
	s.mu.Lock()
	live := 0
	for _, o := range s.orders {
		if o.state == orderActive || o.state == orderAwaitingPayment {
			live++
		}
	}
	stats := struct {
		Calls      map[string]int64 `json:"calls"`
		LiveOrders int              `json:"liveOrders"`
		Bookings   int              `json:"bookings"`
	}{calls, live, len(s.bookings)}
	s.mu.Unlock()
	s.write(w, okReply(stats))
}

// ParseFault reads the -fault flag form "op=GetOrder,latency=500ms,status=503,
// result=13,ext=0,drop=true,times=2".
func ParseFault(spec string) (Fault, error) {
	var ft Fault
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return ft, fmt.Errorf("fault %q: %q is not key=value", spec, part)
		}
		var err error
		switch k {
		case "op", "operation":
			ft.Operation = v
		case "latency":
			var d time.Duration
			d, err = time.ParseDuration(v)
			ft.Latency = Duration(d)
		case "status", "httpStatus":
			_, err = fmt.Sscan(v, &ft.HTTPStatus)
		case "result":
			_, err = fmt.Sscan(v, &ft.Result)
		case "ext", "extendedResultCode":
			_, err = fmt.Sscan(v, &ft.ExtendedResultCode)
		case "drop":
			ft.Drop = v == "true" || v == "1"
		case "times":
			_, err = fmt.Sscan(v, &ft.Times)
		default:
			err = errors.New("unknown key (op, latency, status, result, ext, drop, times)")
		}
		if err != nil {
			return ft, fmt.Errorf("fault %q: %s: %w", spec, k, err)
		}
	}
	return ft, nil
}
