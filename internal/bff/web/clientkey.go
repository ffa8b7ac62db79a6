package web

import (
	"net/netip"

	"github.com/labstack/echo/v4"
)

// ClientKey names the client a rate limit or a lock-out counts against: its IPv4 address, or
// for IPv6 the /64 the address is in ("2001:db8:1:2::/64"). One IPv6 subscriber is usually given
// a whole /64, so keying by the full address would hand every client 2^64 allowances. An
// IPv4-mapped IPv6 address is its IPv4 address. Something that is no address at all (a
// misconfigured proxy) shares one key, "invalid", rather than getting a key of its own per
// value. Logs and the audit trail keep c.RealIP() as it is.
func ClientKey(c echo.Context) string { return ClientKeyOf(c.RealIP()) }

// InvalidClient is the key of a client whose address cannot be read.
const InvalidClient = "invalid"

func ClientKeyOf(ip string) string {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return InvalidClient
	}
	addr = addr.Unmap().WithZone("")
	if addr.Is4() {
		return addr.String()
	}
	p, err := addr.Prefix(64)
	if err != nil {
		return InvalidClient
	}
	return p.String()
}
