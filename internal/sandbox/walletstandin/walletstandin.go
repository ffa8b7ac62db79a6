// Package walletstandin stands in for the services wallet passes talk to, for the embedded
// sandbox: APNs (the pushes that tell a phone its pass changed) on a loopback port speaking
// unencrypted HTTP/2, and the Google Wallet API with its OAuth token endpoint. Both record
// what they are asked, and Page shows it, so a fresh machine shows a change reaching the
// phones' wallets.
package walletstandin

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/cinemabff/cinemabff/internal/wallet/apns"
	"github.com/cinemabff/cinemabff/internal/wallet/googlewallet"
)

// StandIns are the running stand-ins.
type StandIns struct {
	APNs   *apns.Recorder
	Google *googlewallet.Recorder
	// APNsURL is the APNs stand-in's address (an apns.Client's Endpoint).
	APNsURL  string
	stopAPNs func()
}

// GooglePath is where Google should be mounted on the sandbox's own server; the API's base
// URL is that server's address + GooglePath, its token URL that + "token".
const GooglePath = "/google-wallet/"

// Start starts the APNs stand-in on a loopback port. Mount Google (a handler) under
// GooglePath with http.StripPrefix(strings.TrimSuffix(GooglePath, "/"), s.Google).
func Start() (*StandIns, error) {
	s := &StandIns{APNs: apns.NewRecorder(), Google: googlewallet.NewRecorder(nil)}
	var err error
	if s.APNsURL, s.stopAPNs, err = s.APNs.Serve(); err != nil {
		return nil, err
	}
	return s, nil
}

// Close stops the APNs stand-in.
func (s *StandIns) Close() { s.stopAPNs() }

// TestAPNsKey is the APNs auth key kept in dir (made on the first call), for the sandbox's
// pushes: the stand-in takes any key, and Apple would refuse this one, as it should.
func TestAPNsKey(dir string) (*ecdsa.PrivateKey, error) {
	path := filepath.Join(dir, "apns-test-key.p8")
	if data, err := os.ReadFile(path); err == nil {
		return apns.ParseKey(data)
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("apns test key: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("apns test key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("apns test key: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("apns test key: %w", err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return nil, fmt.Errorf("apns test key: %w", err)
	}
	return key, nil
}

// entry is one line of the page: a push or an API call.
type entry struct {
	At     time.Time
	To     string // "APNs" or "Google Wallet API"
	What   string
	Detail string
	Status int
}

// Page shows what the stand-ins recorded, newest first. It answers only on this machine
// (loopback): the records name bookings and seats.
func (s *StandIns) Page() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !fromLoopback(r) {
			http.Error(w, "The sandbox's wallet records are shown only on the machine it runs on.", http.StatusForbidden)
			return
		}
		var es []entry
		for _, p := range s.APNs.Attempts() {
			es = append(es, entry{At: p.At, To: "APNs", What: "push to device " + apns.ShortToken(p.Token),
				Detail: fmt.Sprintf("topic %s, HTTP/%d", p.Topic, p.ProtoMajor), Status: p.Status})
		}
		for _, c := range s.Google.Calls() {
			e := entry{At: c.At, To: "Google Wallet API", What: c.Method + " eventTicketObject " + c.ObjectID, Status: c.Status}
			if o := c.Object; o != nil {
				e.Detail = "state " + o.State
				if o.SeatInfo != nil && o.SeatInfo.Row != nil && o.SeatInfo.Seat != nil {
					e.Detail += fmt.Sprintf(", row %s seat %s", o.SeatInfo.Row.DefaultValue.Value, o.SeatInfo.Seat.DefaultValue.Value)
				}
			}
			es = append(es, e)
		}
		slices.SortFunc(es, func(a, b entry) int { return b.At.Compare(a.At) })
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_ = page.Execute(w, es)
	})
}

func fromLoopback(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.Unmap().IsLoopback()
}

var page = template.Must(template.New("wallet").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sandbox: wallet updates</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; margin: 1rem auto; max-width: 60rem; padding: 0 1rem; color: #1f2937; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid #d1d5db; vertical-align: top; }
td { overflow-wrap: anywhere; }
td.status { font-variant-numeric: tabular-nums; }
.empty { color: #4b5563; }
@media (max-width: 40rem) {
  thead { position: absolute; left: -9999px; }
  tr { display: block; padding: .5rem 0; border-bottom: 1px solid #d1d5db; }
  td { display: block; border: 0; padding: .1rem 0; }
  td::before { content: attr(data-label) ": "; font-weight: 600; }
}
</style></head>
<body>
<h1>Sandbox: wallet updates</h1>
<p>What the stand-ins for Apple's push service (APNs) and the Google Wallet API were asked after bookings changed, newest first. A real deployment sends these to Apple and Google.</p>
{{if .}}<table>
<thead><tr><th scope="col">When (UTC)</th><th scope="col">To</th><th scope="col">What</th><th scope="col">Details</th><th scope="col">Answer</th></tr></thead>
<tbody>{{range .}}<tr><td data-label="When (UTC)">{{.At.UTC.Format "2006-01-02 15:04:05"}}</td><td data-label="To">{{.To}}</td><td data-label="What">{{.What}}</td><td data-label="Details">{{.Detail}}</td><td data-label="Answer" class="status">{{.Status}}</td></tr>
{{end}}</tbody></table>
{{else}}<p class="empty">Nothing yet. Add a booking's ticket to a wallet, then change the booking (swap a seat, say).</p>{{end}}
</body></html>
`))
