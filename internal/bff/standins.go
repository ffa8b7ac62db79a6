package bff

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// The sandbox's stand-ins for the payment provider (its hosted payment page and the simulated
// card readers' tap form) and for the wallet services (the page of what they recorded) pay,
// decline and show without any key: they are for the person trying the site on the machine it
// runs on, never for the network.

// LoopbackOnly serves next only to a client on this machine: the connection must come from a
// loopback address, the client's address as the site reads it (X-Forwarded-For from a trusted
// proxy, else the connection's peer) must be one too, and a request that says it was
// forwarded for anyone else (even by a proxy on this machine that is not among the trusted
// ones) is refused. Anybody else gets 404, with a line saying where the pages open (whoever
// tries them from a phone learns why, and nothing more).
func LoopbackOnly(next http.Handler, trusted []*net.IPNet) http.Handler {
	extract := IpExtractor(trusted)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		peer, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil || !isLoopback(peer) || !isLoopback(extract(r)) || forwardedForOthers(r) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(standInsElsewhere))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// standInsElsewhere is the answer to anybody else, in the two languages the site speaks (a
// plain-text line of the sandbox, which has no language of its own).
const standInsElsewhere = "Not found. The sandbox's stand-in pages open only in a browser on the machine the site runs on.\n" +
	"Nicht gefunden. Die Ersatzseiten der Sandbox öffnen sich nur in einem Browser auf dem Rechner, auf dem die Website läuft.\n"

// isLoopback reports whether ip is a loopback address (127.0.0.0/8, ::1, or IPv4 in IPv6).
func isLoopback(ip string) bool {
	addr, err := netip.ParseAddr(ip)
	return err == nil && addr.Unmap().IsLoopback()
}

// forwardedForOthers reports whether r carries a forwarding header naming anything but a
// loopback address: a browser on this machine sends none.
func forwardedForOthers(r *http.Request) bool {
	if r.Header.Get("Forwarded") != "" {
		return true
	}
	for _, name := range []string{"X-Forwarded-For", "X-Real-Ip"} {
		for _, v := range r.Header.Values(name) {
			for _, ip := range strings.Split(v, ",") {
				if !isLoopback(strings.TrimSpace(ip)) {
					return true
				}
			}
		}
	}
	return false
}
