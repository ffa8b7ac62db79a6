package contract

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/sandbox"
	"github.com/cinemabff/cinemabff/internal/upstream"
)

func setFault(t *testing.T, e *env, f sandbox.Fault) {
	t.Helper()
	noErr(t, e.sb.Faults().Set(f))
	t.Cleanup(e.sb.Faults().Clear)
}

func TestFaultReadRetriesAfterOne5xx(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, _ := e.newOrder(1)
	before := e.sb.Calls("GetOrder")
	setFault(t, e, sandbox.Fault{Operation: "GetOrder", HTTPStatus: 503, Times: 1})
	_, err := e.client.GetOrder(e.ctx, o.UserSessionID)
	noErr(t, err)
	if n := e.sb.Calls("GetOrder") - before; n != 2 {
		t.Errorf("%d GetOrder calls, want 2 (one 503, one retry)", n)
	}

	before = e.sb.Calls("SeatPlan")
	setFault(t, e, sandbox.Fault{Operation: "SeatPlan", Drop: true, Times: 1})
	_, err = e.client.GetSeatPlan(e.ctx, berlin, bigSession)
	noErr(t, err)
	if n := e.sb.Calls("SeatPlan") - before; n != 2 {
		t.Errorf("%d SeatPlan calls after a dropped connection", n)
	}
}

func TestFaultWriteIsNotRetried(t *testing.T) {
	e := newEnv(t, envOptions{})
	for _, op := range []string{"AddTickets", "SwapSeats", "CompleteEditBooking"} {
		setFault(t, e, sandbox.Fault{Operation: op, HTTPStatus: 503, Times: 1})
	}
	before := e.sb.Calls("AddTickets")
	_, err := e.client.AddTickets(e.ctx, upstream.AddTicketsRequest{UserSessionID: upstream.NewUserSessionID(), CinemaID: berlin, SessionID: bigSession, Tickets: []upstream.TicketRequest{{TypeCode: "0001"}}})
	wantErr(t, err, upstream.ErrUnavailable)
	if n := e.sb.Calls("AddTickets") - before; n != 1 {
		t.Errorf("AddTickets sent %d times", n)
	}
	before = e.sb.Calls("SwapSeats")
	err = e.client.SwapSeats(e.ctx, berlin, "BK0186A1", []upstream.SeatSwap{{TicketSequenceNumber: 1}})
	wantErr(t, err, upstream.ErrUnavailable)
	if n := e.sb.Calls("SwapSeats") - before; n != 1 {
		t.Errorf("SwapSeats sent %d times", n)
	}
	before = e.sb.Calls("CompleteEditBooking")
	_, err = e.client.CompleteEditBooking(e.ctx, upstream.NewUserSessionID(), upstream.CompleteEditUnpaid())
	wantErr(t, err, upstream.ErrUnavailable)
	if n := e.sb.Calls("CompleteEditBooking") - before; n != 1 {
		t.Errorf("CompleteEditBooking sent %d times", n)
	}
}

func TestFaultEnvelopeErrorIn200(t *testing.T) {
	e := newEnv(t, envOptions{})
	setFault(t, e, sandbox.Fault{Operation: "GetSingleBooking", Result: 1, ExtendedResultCode: 47, Times: 1})
	_, err := e.client.GetSingleBooking(e.ctx, berlin, 100001)
	er := wantErr(t, err, upstream.ErrNotFound)
	if er.HTTPStatus != 200 {
		t.Errorf("error %#v", er)
	}
	setFault(t, e, sandbox.Fault{Operation: "SetSelectedSeats", Result: 8, Times: 1})
	_, err = e.client.SetSelectedSeats(e.ctx, upstream.SetSelectedSeatsRequest{UserSessionID: upstream.NewUserSessionID()})
	wantErr(t, err, upstream.ErrSeatsUnavailable)
}

func TestFaultHangingUpstreamReturnsWithinDeadline(t *testing.T) {
	e := newEnv(t, envOptions{clientOpts: []upstream.Option{upstream.WithOperationTimeout(upstream.OpGetSeatPlan, 200*time.Millisecond)}})
	setFault(t, e, sandbox.Fault{Operation: "SeatPlan", Latency: sandbox.Duration(3 * time.Second)})
	start := time.Now()
	_, err := e.client.GetSeatPlan(e.ctx, berlin, bigSession)
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("returned after %v with a 200ms deadline", d)
	}
	wantErr(t, err, upstream.ErrUnavailable)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err = %v", err)
	}
}

func TestFaultBreakerOpensAndCloses(t *testing.T) {
	e := newEnv(t, envOptions{clientOpts: []upstream.Option{
		upstream.WithRetry(upstream.RetryPolicy{MaxAttempts: 1}),
		upstream.WithBreaker(upstream.BreakerSettings{ConsecutiveFailures: 3, OpenTimeout: 200 * time.Millisecond}),
	}})
	setFault(t, e, sandbox.Fault{Operation: "*", HTTPStatus: 500})
	for range 3 {
		_, err := e.client.ListFilms(e.ctx, berlin)
		wantErr(t, err, upstream.ErrUnavailable)
	}
	if err := e.client.Ready(); !errors.Is(err, upstream.ErrCircuitOpen) {
		t.Fatalf("Ready = %v", err)
	}
	before := e.sb.Calls("Films")
	_, err := e.client.ListFilms(e.ctx, berlin)
	if !errors.Is(err, upstream.ErrCircuitOpen) || e.sb.Calls("Films") != before {
		t.Errorf("open breaker: %v, %d calls", err, e.sb.Calls("Films")-before)
	}
	e.sb.Faults().Clear()
	time.Sleep(250 * time.Millisecond)
	if err := e.client.Ready(); err != nil {
		t.Fatalf("Ready after the open timeout = %v", err)
	}
	_, err = e.client.ListFilms(e.ctx, berlin)
	noErr(t, err)
	if err := e.client.Ready(); err != nil {
		t.Errorf("Ready after recovery = %v", err)
	}
}

func TestFaultConcurrentPollersOfOneOrder(t *testing.T) {
	e := newEnv(t, envOptions{})
	o, _ := e.newOrder(1)
	setFault(t, e, sandbox.Fault{Operation: "GetOrderDetails", Latency: sandbox.Duration(50 * time.Millisecond)})
	before := e.sb.Calls("GetOrderDetails")
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, 100)
	for range 100 {
		wg.Go(func() {
			<-start
			_, err := e.client.GetOrderDetails(e.ctx, o.UserSessionID)
			if err != nil {
				errs <- err
			}
		})
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := e.sb.Calls("GetOrderDetails") - before
	if n > 3 {
		t.Errorf("100 pollers made %d upstream calls", n)
	}
	t.Logf("100 concurrent pollers, %d upstream calls", n)
}
