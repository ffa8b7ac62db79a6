package web

import (
	"context"

	"github.com/cinemabff/cinemabff/internal/upstream"
)

// WithRequestID keeps the request id in the context; the upstream client sends it on as
// X-Request-ID.
func WithRequestID(ctx context.Context, id string) context.Context {
	return upstream.WithRequestID(ctx, id)
}
