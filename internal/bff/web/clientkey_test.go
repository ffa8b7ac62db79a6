package web

import (
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

func TestClientKey(t *testing.T) {
	cases := []struct {
		name, remote, want string
	}{
		{"IPv4", "203.0.113.7:5000", "203.0.113.7"},
		{"IPv6 full address", "[2001:db8:1:2:a:b:c:d]:5000", "2001:db8:1:2::/64"},
		{"IPv6 same /64, another host", "[2001:db8:1:2:ffff:ffff:ffff:ffff]:5000", "2001:db8:1:2::/64"},
		{"IPv6 next /64", "[2001:db8:1:3::1]:5000", "2001:db8:1:3::/64"},
		{"IPv6 with a zone", "[fe80::1%eth0]:5000", "fe80::/64"},
		{"IPv4-mapped IPv6", "[::ffff:198.51.100.4]:5000", "198.51.100.4"},
		{"IPv6 loopback", "[::1]:5000", "::/64"},
		{"garbage", "not an address", InvalidClient},
		{"empty", "", InvalidClient},
	}
	e := echo.New()
	e.IPExtractor = echo.ExtractIPDirect()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			if got := ClientKey(e.NewContext(r, httptest.NewRecorder())); got != tc.want {
				t.Fatalf("ClientKey(%q) = %q, want %q", tc.remote, got, tc.want)
			}
		})
	}
}
