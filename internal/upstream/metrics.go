package upstream

import (
	"errors"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the client's Prometheus collectors; nil when no registerer was
// given. Both clients may share one registerer: the second reuses the
// collectors of the first.
type metrics struct {
	duration *prometheus.HistogramVec
	total    *prometheus.CounterVec
}

func newMetrics(r prometheus.Registerer) (*metrics, error) {
	if r == nil {
		return nil, nil
	}
	d := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "upstream_request_duration_seconds",
		Help:    "Duration of HTTP requests to the ticketing API and the payment provider, by operation and outcome.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"operation", "outcome"})
	t := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "upstream_requests_total",
		Help: "Requests to the ticketing API and the payment provider, by operation and outcome.",
	}, []string{"operation", "outcome"})
	var err error
	if d, err = register(r, d); err != nil {
		return nil, err
	}
	if t, err = register(r, t); err != nil {
		return nil, err
	}
	return &metrics{duration: d, total: t}, nil
}

func register[C prometheus.Collector](r prometheus.Registerer, c C) (C, error) {
	if err := r.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing, nil
			}
		}
		return c, fmt.Errorf("upstream: register metrics: %w", err)
	}
	return c, nil
}

// observe records one request. A zero duration (a call the breaker refused)
// is only counted.
func (m *metrics) observe(op, outcome string, d time.Duration) {
	if m == nil {
		return
	}
	m.total.WithLabelValues(op, outcome).Inc()
	if d > 0 {
		m.duration.WithLabelValues(op, outcome).Observe(d.Seconds())
	}
}
