package web_test

import (
	"net"
	"net/http/httptest"
	"testing"

	"github.com/cinemabff/cinemabff/internal/bff"
)

func TestClientIPOnlyFromTrustedProxies(t *testing.T) {
	_, proxies, _ := net.ParseCIDR("10.0.0.0/8")
	cases := []struct {
		name    string
		trusted []*net.IPNet
		remote  string
		xff     string
		want    string
	}{
		{"no proxies configured: header ignored", nil, "203.0.113.7:5000", "198.51.100.1", "203.0.113.7"},
		{"trusted proxy: header believed", []*net.IPNet{proxies}, "10.1.2.3:5000", "198.51.100.1", "198.51.100.1"},
		{"untrusted sender: header ignored", []*net.IPNet{proxies}, "203.0.113.7:5000", "198.51.100.1", "203.0.113.7"},
		{"spoofed chain through a trusted proxy", []*net.IPNet{proxies}, "10.1.2.3:5000", "1.2.3.4, 198.51.100.1", "198.51.100.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			r.Header.Set("X-Forwarded-For", tc.xff)
			if got := bff.IpExtractor(tc.trusted)(r); got != tc.want {
				t.Fatalf("client IP %q, want %q", got, tc.want)
			}
		})
	}
}
