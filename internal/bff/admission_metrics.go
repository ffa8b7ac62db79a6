package bff

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cinemabff/cinemabff/internal/admission"
)

// measuredLine is the admission line whose admissions and waits the operators' metrics count:
// each admission is counted by the replica whose request made it, so the replicas' counts add
// up to the site's.
type measuredLine struct {
	admission.Queue
	admitted prometheus.Counter
	wait     prometheus.Histogram
}

// Enter implements admission.Queue.
func (m measuredLine) Enter(ctx context.Context, show string, opens time.Time, v admission.Visitor) (admission.Status, error) {
	st, err := m.Queue.Enter(ctx, show, opens, v)
	for _, w := range st.Let {
		m.admitted.Inc()
		m.wait.Observe(w.Seconds())
	}
	return st, err
}

// measureLine registers the line's metrics in reg: admissions and their waits, and the line's
// length as the line itself counts it at each scrape (the site's, in Redis).
func measureLine(reg prometheus.Registerer, q admission.Queue) (admission.Queue, error) {
	m := measuredLine{Queue: q,
		admitted: prometheus.NewCounter(prometheus.CounterOpts{Name: "admission_admitted_total",
			Help: "Visitors let into a purchase by the admission line (those who went straight in too)."}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "admission_wait_seconds",
			Help:    "How long visitors let into a purchase waited in line (0: straight in).",
			Buckets: []float64{1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200}}),
	}
	length := lineCollector{q: q,
		waiting: prometheus.NewDesc("admission_line_waiting", "Visitors waiting in line, every showtime's, the site's.", nil, nil),
		early:   prometheus.NewDesc("admission_line_before_opening", "Visitors waiting for a showtime's sales to open.", nil, nil),
		open:    prometheus.NewDesc("admission_purchases_open", "Purchases let in and not yet ended.", nil, nil)}
	for _, c := range []prometheus.Collector{m.admitted, m.wait, length} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("register admission metrics: %w", err)
		}
	}
	return m, nil
}

// lineCollector reads the line's length when scraped.
type lineCollector struct {
	q                    admission.Queue
	waiting, early, open *prometheus.Desc
}

func (c lineCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.waiting
	ch <- c.early
	ch <- c.open
}

func (c lineCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	t, err := c.q.Totals(ctx)
	if err != nil {
		// The line does not answer (Redis down): its gauges are left out of this scrape
		// (absent() alerts on that); an invalid metric would fail the whole of /metrics.
		return
	}
	ch <- prometheus.MustNewConstMetric(c.waiting, prometheus.GaugeValue, float64(t.Waiting))
	ch <- prometheus.MustNewConstMetric(c.early, prometheus.GaugeValue, float64(t.Early))
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(t.Admitted))
}
