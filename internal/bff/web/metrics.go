package web

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) (*httpMetrics, error) {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "http_requests_total", Help: "HTTP requests by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "http_request_duration_seconds", Help: "HTTP request duration by method and route pattern.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"method", "route"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "http_requests_in_flight", Help: "HTTP requests being served.",
		}),
	}
	for _, c := range []prometheus.Collector{m.requests, m.duration, m.inFlight} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register http metrics: %w", err)
		}
	}
	return m, nil
}

// methodLabel is the method label of a request: the methods the site knows by name, anything
// else "OTHER", so a client cannot create series by sending made-up methods.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}

// MetricsHandler serves the metrics without asking who calls: for a listener of their own
// (-metrics-addr) that only the operators' scraper reaches.
func (k *Kernel) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(k.Registry, promhttp.HandlerOpts{})
}

// MetricsOnSite is /metrics on the public listener: it answers only a caller that sends
// "Authorization: Bearer <Config.MetricsToken>", and is not there (404) when no token is set.
func (k *Kernel) MetricsOnSite() echo.HandlerFunc {
	if k.Cfg.MetricsToken == "" {
		return func(echo.Context) error { return echo.ErrNotFound }
	}
	// Compared as hashes, so neither the token's content nor its length shows in the timing.
	want := sha256.Sum256([]byte(k.Cfg.MetricsToken))
	auth := middleware.KeyAuthWithConfig(middleware.KeyAuthConfig{
		KeyLookup:  "header:" + echo.HeaderAuthorization,
		AuthScheme: "Bearer", // matched in any case
		Validator: func(token string, _ echo.Context) (bool, error) {
			got := sha256.Sum256([]byte(strings.TrimSpace(token)))
			return subtle.ConstantTimeCompare(got[:], want[:]) == 1, nil
		},
		// A missing header too is a 401 (KeyAuth's own answer would be 400), with the challenge.
		ErrorHandler: func(_ error, c echo.Context) error {
			c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="metrics"`)
			return echo.NewHTTPError(http.StatusUnauthorized)
		},
	})
	return auth(echo.WrapHandler(k.MetricsHandler()))
}
