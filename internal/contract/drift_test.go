package contract

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cinemabff/cinemabff/internal/goldenapi"
	"github.com/cinemabff/cinemabff/internal/upstream"
	"github.com/cinemabff/cinemabff/internal/wireshape"
)

// The sandbox must answer in the real wire's shapes. Every contract test's
// client records the sandbox's successful replies; after the tests, each is
// compared with the golden reply of its operation (internal/upstream/testdata/golden,
// written from upstream-notes, not from the sandbox). A field the sandbox
// names or types differently from the golden body fails the package.

// goldenOptional are the fields the wire profile marks as ours and tolerated
// when absent (see the golden README), plus the sandbox's documented
// extensions that a real upstream may or may not send.
var goldenOptional = []string{
	"Order.AppliedPayments", "Order.AmountToPayInCents",
	"Order.Sessions[].Tickets[].PackageGroupNumber", "Order.Sessions[].Tickets[].BookingStatus",
	"value[].CurrencyCode",
	"SeatLayoutData.AreaCategories[].IsInSeatDeliveryEnabled",
	"Tickets[].LongDescription", "Tickets[].TaxInCents", "Tickets[].IsThirdPartyMemberTicket",
	"Booking.CinemaId", "Booking.CustomerName", "Booking.CustomerEmail", "Booking.Concessions", "Booking.Payments",
	"Booking.Tickets[].PaymentId", "Booking.Tickets[].OrderPaymentAmount", "ExtendedResultCode", "reason",
	"AmountAppliedInCents", "BalanceRemainingInCents", "AmountToPayInCents", "OrderLastUpdated", "Order",
	"AdditionalPayments", "PrintStreams", "PrintStream", "PrintStreamCollection", "MemberBalances", "Attachments",
	"SessionAttributesNames", "bookingNumber", "bookingId",
}

type replyRecorder struct {
	mu      sync.Mutex
	replies map[string][][]byte // operation → successful reply bodies
}

var recorded = &replyRecorder{replies: map[string][][]byte{}}

func (r *replyRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if op := goldenapi.OperationOf(req.Method, req.URL.Path); op != "" && isSuccess(b) {
		r.mu.Lock()
		if len(r.replies[op]) < 20 {
			r.replies[op] = append(r.replies[op], b)
		}
		r.mu.Unlock()
	}
	return resp, nil
}

// isSuccess reports a body whose codes say success (refusals have their own shapes).
func isSuccess(b []byte) bool {
	for _, k := range []string{`"Result":`, `"result":`, `"ResultCode":`, `"ResponseCode":`} {
		if i := bytes.Index(b, []byte(k)); i >= 0 {
			rest := bytes.TrimLeft(b[i+len(k):], " ")
			return bytes.HasPrefix(rest, []byte("0"))
		}
	}
	return true
}

// drifts compares every recorded reply with its operation's golden body.
func (r *replyRecorder) drifts(requireAll bool) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	ops := slices.Sorted(func(yield func(string) bool) {
		for op := range upstream.DefaultPaths() {
			if !yield(op) {
				return
			}
		}
	})
	for _, op := range ops {
		bodies := r.replies[op]
		if len(bodies) == 0 {
			if requireAll {
				out = append(out, op+": no successful reply was recorded; the contract tests do not cover it")
			}
			continue
		}
		want, err := os.ReadFile(filepath.Join("..", "upstream", "testdata", "golden", op+".reply.json"))
		if err != nil {
			out = append(out, fmt.Sprintf("%s: %v", op, err))
			continue
		}
		seen := map[string]bool{}
		for _, b := range bodies {
			ds, err := wireshape.Compare(want, b, wireshape.Options{Optional: goldenOptional})
			if err != nil {
				out = append(out, fmt.Sprintf("%s: %v", op, err))
				continue
			}
			for _, d := range ds {
				if s := op + ": " + d.String(); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
		}
	}
	return out
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 {
		// Every operation must be covered only when the whole package ran.
		all := flag.Lookup("test.run").Value.String() == "" && flag.Lookup("test.skip").Value.String() == ""
		if ds := recorded.drifts(all); len(ds) > 0 {
			fmt.Fprintln(os.Stderr, "FAIL: the sandbox's replies drift from the golden shapes of the real wire:")
			for _, d := range ds {
				fmt.Fprintln(os.Stderr, "  "+d)
			}
			code = 1
		}
	}
	os.Exit(code)
}

// TestDriftCheckCanFail makes sure the comparison catches a renamed field.
func TestDriftCheckCanFail(t *testing.T) {
	r := &replyRecorder{replies: map[string][][]byte{
		upstream.OpCompleteOrder: {[]byte(`{"Result":0,"ExtendedResultCode":0,"ErrorDescription":null,"CoreBookingNumber":1,"VistaBookingId":"x","VistaTransNumber":2}`)},
	}}
	ds := r.drifts(false)
	joined := strings.Join(ds, "\n")
	if !strings.Contains(joined, "VistaBookingNumber") || !strings.Contains(joined, "CoreBookingNumber") {
		t.Errorf("drifts = %v: want VistaBookingNumber missing and CoreBookingNumber extra", ds)
	}
}
