package bff_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff"
)

// TestStandInsOnlyForThisMachine: the stand-in pages answer a browser on this machine (IPv4 or
// IPv6 loopback, also through a trusted proxy on this machine that forwards for it) and 404 to
// any other client: one on the network, one a trusted proxy forwards for, and one an untrusted
// proxy on this machine forwards for.
func TestStandInsOnlyForThisMachine(t *testing.T) {
	_, loopback, _ := net.ParseCIDR("127.0.0.0/8")
	_, lan, _ := net.ParseCIDR("10.0.0.0/8")
	page := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("stand-in")) })
	for _, tc := range []struct {
		name    string
		trusted []*net.IPNet
		remote  string
		headers map[string]string
		want    int
	}{
		{"browser on this machine", nil, "127.0.0.1:50000", nil, http.StatusOK},
		{"browser on this machine over IPv6", nil, "[::1]:50000", nil, http.StatusOK},
		{"trusted proxy on this machine for a browser on it", []*net.IPNet{loopback}, "127.0.0.1:50000", map[string]string{"X-Forwarded-For": "127.0.0.1"}, http.StatusOK},
		{"phone on the network", nil, "192.0.2.10:50000", nil, http.StatusNotFound},
		{"phone on the network claiming to be local", nil, "192.0.2.10:50000", map[string]string{"X-Forwarded-For": "127.0.0.1"}, http.StatusNotFound},
		{"trusted proxy on this machine for a phone", []*net.IPNet{loopback}, "127.0.0.1:50000", map[string]string{"X-Forwarded-For": "203.0.113.5"}, http.StatusNotFound},
		{"trusted proxy elsewhere for a phone", []*net.IPNet{lan}, "10.1.2.3:50000", map[string]string{"X-Forwarded-For": "203.0.113.5"}, http.StatusNotFound},
		{"trusted proxy elsewhere claiming a local browser", []*net.IPNet{lan}, "10.1.2.3:50000", map[string]string{"X-Forwarded-For": "127.0.0.1"}, http.StatusNotFound},
		{"untrusted proxy on this machine for a phone", nil, "127.0.0.1:50000", map[string]string{"X-Forwarded-For": "203.0.113.5"}, http.StatusNotFound},
		{"untrusted proxy on this machine, X-Real-IP", nil, "127.0.0.1:50000", map[string]string{"X-Real-IP": "203.0.113.5"}, http.StatusNotFound},
		{"untrusted proxy on this machine, Forwarded", nil, "127.0.0.1:50000", map[string]string{"Forwarded": "for=203.0.113.5"}, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/sandbox/pay/terminal", nil)
			r.RemoteAddr = tc.remote
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			bff.LoopbackOnly(page, tc.trusted).ServeHTTP(w, r)
			if w.Code != tc.want || (tc.want == http.StatusOK) != (w.Body.String() == "stand-in") {
				t.Fatalf("%d %q, want %d", w.Code, w.Body.String(), tc.want)
			}
		})
	}
}
