package upstream

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// slowly answers body after d, or gives up when the caller does.
func slowly(d time.Duration, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(d):
			io.WriteString(w, body)
		case <-r.Context().Done():
		}
	}
}

// TestReadDeadlineBoundsReadsOnly: a read ends at the request's read deadline, retries and
// backoff included, and says it timed out and changed nothing; a write in the same context
// is not cut off by it (it has its own timeout), so a change is never abandoned halfway.
func TestReadDeadlineBoundsReadsOnly(t *testing.T) {
	f := newFake(t)
	f.handle("POST /RESTTicketing.svc/order", slowly(600*time.Millisecond, okOrder))
	f.handle("POST /RESTTicketing.svc/order/cancel", slowly(600*time.Millisecond, okOrder))
	c := f.client(WithTimeout(5*time.Second), WithRetry(RetryPolicy{MaxAttempts: 5, BaseDelay: 10 * time.Millisecond, MaxDelay: 50 * time.Millisecond}))
	ctx := WithReadDeadline(context.Background(), time.Now().Add(150*time.Millisecond))

	tests := []struct {
		name    string
		call    func(context.Context) error
		wantErr bool
		atLeast time.Duration
		atMost  time.Duration
	}{
		{"read is cut at the read deadline", func(ctx context.Context) error { _, err := c.GetOrder(ctx, "u"); return err }, true, 0, 400 * time.Millisecond},
		{"write runs to its answer", func(ctx context.Context) error { return c.CancelOrder(ctx, "u") }, false, 550 * time.Millisecond, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			err := tt.call(ctx)
			d := time.Since(start)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if d < tt.atLeast || d > tt.atMost {
				t.Errorf("took %v, want between %v and %v", d, tt.atLeast, tt.atMost)
			}
			if tt.wantErr && (!TimedOut(err) || !SafeCall(err)) {
				t.Errorf("err = %v: TimedOut %v, SafeCall %v; want both", err, TimedOut(err), SafeCall(err))
			}
		})
	}
	if n := f.count("POST /RESTTicketing.svc/order/cancel"); n != 1 {
		t.Errorf("cancel sent %d times", n)
	}

	// Without a read deadline (a money step detached from its request) the read waits.
	if _, err := c.GetOrder(WithReadDeadline(ctx, time.Time{}), "u"); err != nil {
		t.Errorf("read without a read deadline: %v", err)
	}
}

// TestDetachDropsCancellationAndReadDeadline: a detached context keeps the request's values
// but neither its cancellation nor its read deadline.
func TestDetachDropsCancellationAndReadDeadline(t *testing.T) {
	type k struct{}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), k{}, "v"))
	ctx = WithReadDeadline(ctx, time.Now().Add(-time.Second))
	cancel()
	d := Detach(ctx)
	if d.Err() != nil {
		t.Errorf("detached context ended with its request: %v", d.Err())
	}
	if dl, ok := ReadDeadline(d); ok {
		t.Errorf("detached context keeps the read deadline %v", dl)
	}
	if d.Value(k{}) != "v" {
		t.Error("detached context lost the request's values")
	}
}

// TestSharedOrderDetailsReadOutlivesFirstCallersBudget: the one GetOrderDetails call shared
// by concurrent callers is not cut off at the read deadline of the caller that started it.
func TestSharedOrderDetailsReadOutlivesFirstCallersBudget(t *testing.T) {
	f := newFake(t)
	f.handle("GET /RESTTicketing.svc/order/details", slowly(300*time.Millisecond, fixture(t, "order_details.json")))
	c := f.client(WithTimeout(5 * time.Second))
	first := WithReadDeadline(context.Background(), time.Now().Add(50*time.Millisecond))
	go c.GetOrderDetails(first, "0123456789abcdef0123456789abcdef")
	for deadline := time.Now().Add(2 * time.Second); f.count("GET /RESTTicketing.svc/order/details") == 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if _, err := c.GetOrderDetails(context.Background(), "0123456789abcdef0123456789abcdef"); err != nil {
		t.Fatalf("a caller without a read deadline got the first caller's timeout: %v", err)
	}
	if n := f.count("GET /RESTTicketing.svc/order/details"); n != 1 {
		t.Errorf("%d upstream calls, want the one shared", n)
	}
}
