package booking_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/ledger"
	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/sandbox/payprovider"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// killedAfterRefund is the Payments of a process that dies the moment the provider has
// refunded, before the answer reaches the ledger.
type killedAfterRefund struct{ upstream.Payments }

func (k killedAfterRefund) Refund(ctx context.Context, id string, cents int64, key string) (upstream.Refund, error) {
	r, err := k.Payments.Refund(ctx, id, cents, key)
	if err == nil {
		os.Exit(3) // killed between the provider call and the ledger write
	}
	return r, err
}

// TestRefundSurvivesAProcessKilledMidway runs the refund of an edit in a child process that is
// killed right after the provider refunded and before the ledger heard of it. A fresh process
// on the same database finishes it: the customer gets the money exactly once and the booking
// takes the change once.
func TestRefundSurvivesAProcessKilledMidway(t *testing.T) {
	if os.Getenv("MONEY_CHILD_UPSTREAM") != "" {
		runKilledChild(t)
		return
	}
	prov := payprovider.New(payprovider.Options{PublicURL: "http://127.0.0.1/pay", APIKey: bfftest.TestPayKey})
	t.Cleanup(prov.Close)
	sb, err := sandbox.New(sandbox.Options{Token: bfftest.TestToken, CompletionDelay: 20 * time.Millisecond, Payments: prov})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sb.Close)
	mux := http.NewServeMux()
	mux.Handle("/pay/", http.StripPrefix("/pay", prov.Handler()))
	mux.Handle("/", sb.Handler())
	up := httptest.NewServer(mux)
	t.Cleanup(up.Close)
	db := "sqlite:" + filepath.Join(t.TempDir(), "money.db")

	cmd := exec.Command(os.Args[0], "-test.run", "^TestRefundSurvivesAProcessKilledMidway$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MONEY_CHILD_UPSTREAM="+up.URL, "MONEY_CHILD_DB="+db)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
		t.Fatalf("the child was not killed after the refund (err %v):\n%s", err, out)
	}
	pi := "pi_seed100003"
	refunded := func() int64 {
		rs, _ := prov.Refunds(pi)
		var sum int64
		for _, r := range rs {
			sum += r.Amount
		}
		return sum
	}
	before := refunded()
	if before == 0 {
		t.Fatal("the child died before the provider refunded")
	}

	// A new process on the same database: the reconciler finishes what the dead one began.
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{UpstreamURL: up.URL, DatabaseURL: db})
	for range 3 {
		h.Srv.Reconcile(context.Background())
	}
	es, _ := bfftest.Entries(t, h)
	var owed int64
	for _, e := range es {
		if e.Kind != ledger.KindRefund || e.State != ledger.StateApplied {
			t.Fatalf("entry %s left in %s/%s: %s", e.ID, e.Kind, e.State, e.LastError)
		}
		owed += e.AmountCents
	}
	if len(es) == 0 || refunded() != owed || refunded() != before {
		t.Fatalf("refunded %d (before the restart %d), owed %d, entries %+v", refunded(), before, owed, es)
	}
	if n := sb.Calls("CompleteEditBooking"); n != 1 {
		t.Fatalf("%d complete-edit calls", n)
	}
}

// runKilledChild is the child: it removes a ticket of 100003 and completes the edit, and
// dies inside the refund.
func runKilledChild(t *testing.T) {
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{UpstreamURL: os.Getenv("MONEY_CHILD_UPSTREAM"), DatabaseURL: os.Getenv("MONEY_CHILD_DB"),
		WrapPayments: func(p upstream.Payments) upstream.Payments { return killedAfterRefund{p} }})
	h.Find(bfftest.BkPaid3)
	doc := h.StartEdit(t)
	ticket := doc.Find(`input[name="ticket"]`).Last().AttrOr("value", "")
	if ticket == "" {
		t.Fatalf("no ticket to remove: %s", doc.Find("main").Text())
	}
	h.Submit("/booking/edit/tickets/remove", "/booking/edit", map[string][]string{"ticket": {ticket}})
	h.Post("/booking/edit/complete", "/booking/edit", nil)
	t.Fatal("the process was not killed in the refund")
}
