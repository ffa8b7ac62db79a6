package upstream

import (
	"context"
	"errors"
	"net"
	"time"
)

type readDeadlineKey struct{}

// WithReadDeadline returns a context whose reads (the safe calls, retries and
// backoff included) end at t at the latest. Writes are not bound by it: a
// call that changes state upstream is never cut off because a page wants to
// answer, only by its own timeout and its context. The zero time removes a
// read deadline set earlier (a money step detached from its request).
//
// It is a value, not a cancellation, so the rest of the request (the
// database, the session store) is not cut off with the reads.
func WithReadDeadline(ctx context.Context, t time.Time) context.Context {
	return context.WithValue(ctx, readDeadlineKey{}, t)
}

// Detach returns ctx without its cancellation, its deadline and its read deadline, keeping
// its values: the context of a call shared by several requests (or outliving the one that
// started it), which no single request's budget may cut short. The caller gives it a
// timeout of its own.
func Detach(ctx context.Context) context.Context {
	return WithReadDeadline(context.WithoutCancel(ctx), time.Time{})
}

// ReadDeadline returns the read deadline set by WithReadDeadline.
func ReadDeadline(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(readDeadlineKey{}).(time.Time)
	return t, ok && !t.IsZero()
}

// TimedOut reports whether err is a call that ran out of time: its own
// timeout, the read deadline, or its context's deadline passed before the
// upstream answered. The upstream is then slow, not refusing.
func TimedOut(err error) bool {
	var e *Error
	return errors.As(err, &e) && errors.Is(e.Err, context.DeadlineExceeded)
}

// MayHaveChanged reports whether a failed call may have changed something upstream all the
// same: a write whose request may have reached the upstream before it failed (the connection
// lost after it was sent, a timeout, an HTTP 5xx from the upstream or a proxy in front of it).
// A read, a call the circuit breaker refused, a connection never made and an answer with a
// code in its body changed nothing.
func MayHaveChanged(err error) bool {
	var e *Error
	if !errors.As(err, &e) || e.Read || !e.Outage || errors.Is(e.Err, ErrCircuitOpen) {
		return false
	}
	var op *net.OpError
	return !errors.As(e.Err, &op) || op.Op != "dial"
}

// SafeCall reports whether err comes from a read: a call that changes
// nothing upstream, so a person may be told that nothing was changed by it.
func SafeCall(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Read
}
