package purchases

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/testclock"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

// fakeUpstream answers the order details and CancelOrder like the ticketing system would; what
// it says can change while a watcher runs.
type fakeUpstream struct {
	mu        sync.Mutex
	details   cinema.OrderDetails
	err       error
	cancelErr error
	cancels   int
}

func (f *fakeUpstream) set(d cinema.OrderDetails, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.details, f.err = d, err
}

func (f *fakeUpstream) fetch(context.Context, string) (cinema.OrderDetails, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.details, f.err
}

func (f *fakeUpstream) CancelOrder(context.Context, string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels++
	return f.cancelErr
}

func (f *fakeUpstream) cancelCalls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cancels
}

type watcherEnv struct {
	w         *Watcher
	up        *fakeUpstream
	clock     *testclock.Clock
	completed chan Record
}

func newWatcherEnv(t *testing.T) *watcherEnv {
	t.Helper()
	clock := testclock.New(time.UnixMilli(1_700_000_000_000))
	st := newStore(t)
	st.now = clock.Now
	up := &fakeUpstream{}
	bg, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	env := &watcherEnv{up: up, clock: clock, completed: make(chan Record, 4)}
	env.w = &Watcher{Store: st, Ticketing: up, Background: bg, Now: clock.Now,
		Poller:      NewPoller(up.fetch, WithClock(clock.Now), WithBackoff(func(time.Duration) time.Duration { return 0 })),
		Every:       func(time.Duration) time.Duration { return 10 * time.Millisecond },
		Describe:    func(time.Duration) string { return "24 hours" },
		OnCompleted: func(_ context.Context, rec Record) { env.completed <- rec },
	}
	return env
}

// awaiting records a payment under way for the order usid, its provider token "tok".
func (e *watcherEnv) awaiting(t *testing.T, usid string) Record {
	t.Helper()
	ctx := context.Background()
	r, err := e.w.Store.Create(ctx, Record{UserSessionID: usid, CinemaID: "0001", SessionID: "1113", AmountCents: 2650, Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = e.w.Store.MarkAwaiting(ctx, r.ID, "https://pay.example/x", "tok"); err != nil {
		t.Fatal(err)
	}
	return r
}

func (e *watcherEnv) waitFor(t *testing.T, id string, want State) Record {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		rec, err := e.w.Store.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.State == want {
			return rec
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s is %s, want %s", id, rec.State, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatcherApply: a completion is recorded and reported to OnCompleted once; a failed
// payment ends the record only when its token is the record's; an upstream error or a pending
// payment changes nothing.
func TestWatcherApply(t *testing.T) {
	e := newWatcherEnv(t)
	ctx := context.Background()
	rec := e.awaiting(t, "o1")

	if next, final := e.w.Apply(ctx, rec, Result{Err: errors.New("timeout")}); final || next.State != StateAwaiting {
		t.Fatalf("an error ended the payment: %s %v", next.State, final)
	}
	pending := cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentPending, Token: "tok"}}
	if _, final := e.w.Apply(ctx, rec, Result{Details: pending}); final {
		t.Fatal("a pending payment is final")
	}
	other := cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentDeclined, Token: "another attempt"}}
	if _, final := e.w.Apply(ctx, rec, Result{Details: other}); final {
		t.Fatal("another attempt's decline ended this payment")
	}
	next, final := e.w.Apply(ctx, rec, Result{Details: cinema.OrderDetails{Completed: true, BookingNumber: 400123}})
	if !final || next.State != StateCompleted || next.BookingNumber != 400123 {
		t.Fatalf("completion: %+v %v", next, final)
	}
	if got := <-e.completed; got.ID != rec.ID {
		t.Fatalf("OnCompleted for %s", got.ID)
	}
	// Read again (another tab): already completed, nothing more to release.
	if next, final := e.w.Apply(ctx, rec, Result{Details: cinema.OrderDetails{Completed: true, BookingNumber: 400123}}); !final || next.State != StateCompleted {
		t.Fatalf("second completion: %+v %v", next, final)
	}
	if len(e.completed) != 0 {
		t.Fatal("OnCompleted called twice")
	}

	cancelled := e.awaiting(t, "o2")
	d := cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentCancelled, Token: "tok"}}
	if next, final := e.w.Apply(ctx, cancelled, Result{Details: d}); !final || next.State != StateCancelled {
		t.Fatalf("cancelled at the provider: %+v %v", next, final)
	}
}

// TestWatcherGivesUpAtTheEndOfTheWindow: measured on the watcher's clock, an order is not
// given up before its window ends; then it is cancelled upstream and the record says why. A
// cancel that could not reach the upstream is tried again.
func TestWatcherGivesUpAtTheEndOfTheWindow(t *testing.T) {
	e := newWatcherEnv(t)
	e.up.set(cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentPending, Token: "tok"}}, nil)
	e.up.cancelErr = errors.New("connection refused")
	rec := e.awaiting(t, "o1")
	e.w.Watch(rec)
	if !e.w.Poller.Watching("o1") {
		t.Fatal("not watching")
	}
	e.clock.Advance(DefaultWatchFor - time.Minute)
	time.Sleep(100 * time.Millisecond)
	if n := e.up.cancelCalls(); n != 0 {
		t.Fatalf("cancelled %d times before the window ended", n)
	}
	e.clock.Advance(2 * time.Minute)
	deadline := time.Now().Add(5 * time.Second)
	for e.up.cancelCalls() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got, _ := e.w.Store.Get(context.Background(), rec.ID); got.State != StateAwaiting || e.up.cancelCalls() < 2 {
		t.Fatalf("a failed cancel was not tried again: %s after %d calls", got.State, e.up.cancelCalls())
	}
	e.up.mu.Lock()
	e.up.cancelErr = nil
	e.up.mu.Unlock()
	got := e.waitFor(t, rec.ID, StateGivenUp)
	if !got.OrderCancelled || !strings.Contains(got.GiveUpReason, "within 24 hours") || !strings.Contains(got.GiveUpReason, "cancelled upstream") {
		t.Fatalf("give-up not recorded: %+v", got)
	}
	for e.w.Poller.Watching("o1") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if e.w.Poller.Watching("o1") {
		t.Fatal("still watching a given-up order")
	}
}

// TestWatcherGiveUpFindsItGone: an order the upstream no longer has holds no seats: it is given
// up as cancelled, with a reason that says so.
func TestWatcherGiveUpFindsItGone(t *testing.T) {
	e := newWatcherEnv(t)
	e.up.set(cinema.OrderDetails{}, nil)
	e.up.cancelErr = upstream.ErrOrderExpired
	rec := e.awaiting(t, "o1")
	e.clock.Advance(DefaultWatchFor)
	e.w.Watch(rec)
	got := e.waitFor(t, rec.ID, StateGivenUp)
	if !got.OrderCancelled || !strings.Contains(got.GiveUpReason, "already gone upstream") {
		t.Fatalf("give-up of a gone order: %+v", got)
	}
}

// TestWatcherCheckNowAndResume: a check on demand of an unconfirmed order watches it again
// until its deadline; a given-up order the upstream no longer answers about is reported gone;
// Resume picks up every payment under way.
func TestWatcherCheckNowAndResume(t *testing.T) {
	e := newWatcherEnv(t)
	e.w.Every = func(time.Duration) time.Duration { return time.Hour } // only the checks asked for
	ctx := context.Background()
	e.up.set(cinema.OrderDetails{WebPayment: &cinema.WebPayment{Status: cinema.PaymentPending, Token: "tok"}}, nil)
	rec := e.awaiting(t, "o1")
	c := e.w.CheckNow(ctx, rec)
	if c.Found != FoundWatching || !c.Until.Equal(rec.Created.Add(DefaultWatchFor)) || !e.w.Poller.Watching("o1") {
		t.Fatalf("check of an unconfirmed order: %+v", c)
	}

	e.awaiting(t, "o2")
	if n, err := e.w.Resume(ctx); err != nil || n != 2 || !e.w.Poller.Watching("o2") {
		t.Fatalf("resumed %d: %v", n, err)
	}

	given, err := e.w.Store.MarkGivenUp(ctx, rec.ID, "test", true)
	if err != nil {
		t.Fatal(err)
	}
	e.up.set(cinema.OrderDetails{}, upstream.ErrNotFound)
	if c := e.w.CheckNow(ctx, given); c.Found != FoundGone || !errors.Is(c.Err, upstream.ErrNotFound) {
		t.Fatalf("check of a gone order: %+v", c)
	}
	// Slow or down says nothing about the order: not "gone", and it stays given up.
	e.up.set(cinema.OrderDetails{}, upstream.ErrUnavailable)
	if c := e.w.CheckNow(ctx, given); c.Found != FoundUnreachable || c.Record.State != StateGivenUp {
		t.Fatalf("check of a given-up order with the upstream down: %+v", c)
	}
	e.up.set(cinema.OrderDetails{Completed: true, BookingNumber: 7}, nil)
	if c := e.w.CheckNow(ctx, given); c.Found != FoundCompleted || c.Record.BookingNumber != 7 {
		t.Fatalf("check of a late completion: %+v", c)
	}
}
