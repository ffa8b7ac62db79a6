package bff

import "context"

type requestIDKey struct{}

// withRequestID keeps the request id in the context so upstream calls can pass it on.
func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}
