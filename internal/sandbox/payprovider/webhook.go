package payprovider

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/stripe/stripe-go/v85"
)

// apiVersion is the API version of the events: stripe-go's own, so that
// webhook.ConstructEvent accepts them.
const apiVersion = stripe.APIVersion

// The event types the provider sends.
const (
	EventCheckoutSessionCompleted = "checkout.session.completed" // after Pay on the hosted page
	EventCheckoutSessionExpired   = "checkout.session.expired"   // expires_at passed, or POST …/expire
	EventChargeRefunded           = "charge.refunded"            // after every refund; data.object is the charge

	// The Terminal flow's events (intents made by POST /v1/payment_intents).
	// data.object is the intent for payment_intent.*, the reader with its
	// action for terminal.reader.*.
	EventPaymentIntentSucceeded               = "payment_intent.succeeded"                 // an approved card, capture_method automatic(_async)
	EventPaymentIntentAmountCapturableUpdated = "payment_intent.amount_capturable_updated" // an approved card, capture_method manual (requires_capture)
	EventPaymentIntentPaymentFailed           = "payment_intent.payment_failed"            // a declined card
	EventPaymentIntentCanceled                = "payment_intent.canceled"                  // POST /v1/payment_intents/{id}/cancel
	EventTerminalReaderActionSucceeded        = "terminal.reader.action_succeeded"         // the reader's action took the payment
	EventTerminalReaderActionFailed           = "terminal.reader.action_failed"            // the reader's action ended with a declined card
)

// maxDeliveryAttempts is how often an event is tried before giving up.
const maxDeliveryAttempts = 4

// tickEvery is how often the provider looks for sessions past expires_at
// while some are open.
var tickEvery = time.Second

// Event is an event the provider made, with its deliveries.
type Event struct {
	ID       string
	Type     string
	ObjectID string // the id of data.object
	Created  time.Time
	Payload  []byte // the JSON body sent
	Attempts []DeliveryAttempt
	// Delivered: some attempt was answered 2xx.
	Delivered bool
	// Pending: the automatic delivery (with its retries) is still running.
	Pending bool
}

// DeliveryAttempt is one POST of an event to the webhook URL.
type DeliveryAttempt struct {
	At         time.Time
	StatusCode int    // 0 when there was no answer
	Err        string // transport error, if any
}

type eventRec struct {
	Event
}

func (e *eventRec) snapshot() Event {
	out := e.Event
	out.Attempts = append([]DeliveryAttempt(nil), e.Attempts...)
	return out
}

type eventRequestJSON struct {
	ID             *string `json:"id"`
	IdempotencyKey *string `json:"idempotency_key"`
}

type eventDataJSON struct {
	Object             any            `json:"object"`
	PreviousAttributes map[string]any `json:"previous_attributes,omitempty"`
}

type eventJSON struct {
	ID              string           `json:"id"`
	Object          string           `json:"object"`
	APIVersion      string           `json:"api_version"`
	Created         int64            `json:"created"`
	Data            eventDataJSON    `json:"data"`
	Livemode        bool             `json:"livemode"`
	PendingWebhooks int              `json:"pending_webhooks"`
	Request         eventRequestJSON `json:"request"`
	Type            string           `json:"type"`
}

// queueEventLocked records an event and starts its delivery. req is the API
// request that caused it (nil for the hosted page and the clock).
func (p *Provider) queueEventLocked(typ, objectID string, obj any, prev map[string]any, req *apiCall) {
	now := p.now()
	ev := eventJSON{ID: newID("evt_", 24), Object: "event", APIVersion: apiVersion, Created: now.Unix(),
		Data: eventDataJSON{Object: obj, PreviousAttributes: prev}, Type: typ}
	if req != nil {
		ev.Request.ID = optStr(req.reqID)
		ev.Request.IdempotencyKey = optStr(req.idemKey)
	}
	deliver := p.webhookURL != "" && !p.closed
	if deliver {
		ev.PendingWebhooks = 1
	}
	rec := &eventRec{Event{ID: ev.ID, Type: typ, ObjectID: objectID, Created: now, Payload: marshal(ev), Pending: deliver}}
	p.events = append(p.events, rec)
	if deliver {
		p.bg.Add(1)
		if p.inflight == 0 {
			p.idle = make(chan struct{})
		}
		p.inflight++
		go p.deliverLoop(rec)
	}
}

// deliverLoop sends an event until it is answered 2xx, with retries after
// backoff, 2×backoff, … up to maxDeliveryAttempts, or until Close.
func (p *Provider) deliverLoop(rec *eventRec) {
	defer p.bg.Done()
	delay := p.backoff
	for attempt := 1; ; attempt++ {
		err := p.attempt(p.ctx, rec)
		if err == nil {
			break
		}
		if attempt >= maxDeliveryAttempts || p.ctx.Err() != nil {
			p.log.Warn("webhook delivery failed; giving up", "event", rec.ID, "type", rec.Type, "attempts", attempt, "err", err)
			break
		}
		p.log.Info("webhook delivery failed; will retry", "event", rec.ID, "type", rec.Type, "attempt", attempt, "retry_in", delay, "err", err)
		t := time.NewTimer(delay)
		select {
		case <-p.ctx.Done():
			t.Stop()
		case <-t.C:
		}
		if p.ctx.Err() != nil {
			break
		}
		delay *= 2
	}
	p.mu.Lock()
	rec.Pending = false
	p.inflight--
	if p.inflight == 0 {
		close(p.idle)
	}
	p.mu.Unlock()
}

var errNoWebhookURL = errors.New("payprovider: no webhook URL")

// attempt POSTs an event once, signed now, and records the attempt.
func (p *Provider) attempt(ctx context.Context, rec *eventRec) error {
	p.mu.Lock()
	u, payload := p.webhookURL, rec.Payload
	p.mu.Unlock()
	if u == "" {
		return errNoWebhookURL
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)")
	req.Header.Set("Cache-Control", "no-cache")
	req.Header.Set("Stripe-Signature", Signature(payload, p.webhookSecret, time.Now()))
	res, err := p.hc.Do(req)
	at := DeliveryAttempt{At: time.Now()}
	if err != nil {
		at.Err = err.Error()
	} else {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		at.StatusCode = res.StatusCode
		if res.StatusCode < 200 || res.StatusCode > 299 {
			err = fmt.Errorf("webhook endpoint answered %d", res.StatusCode)
		}
	}
	p.mu.Lock()
	rec.Attempts = append(rec.Attempts, at)
	if err == nil {
		rec.Delivered = true
	}
	p.mu.Unlock()
	return err
}

// Signature is the Stripe-Signature header of payload signed with secret at
// time t: "t=<unix>,v1=<hex HMAC-SHA256(secret, "<unix>.<payload>")>", as
// stripe-go's webhook.ConstructEvent checks it.
func Signature(payload []byte, secret string, t time.Time) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte("."))
	mac.Write(payload)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// Events returns the events made so far, oldest first, with their delivery
// attempts. Sessions past expires_at are expired first, so their
// checkout.session.expired is among them.
func (p *Provider) Events() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked()
	out := make([]Event, 0, len(p.events))
	for _, e := range p.events {
		out = append(out, e.snapshot())
	}
	return out
}

// LastEvent returns the newest event of a type ("" for any type).
func (p *Provider) LastEvent(typ string) (Event, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sweepLocked()
	for i := len(p.events) - 1; i >= 0; i-- {
		if typ == "" || p.events[i].Type == typ {
			return p.events[i].snapshot(), true
		}
	}
	return Event{}, false
}

// Redeliver sends an event once more, now, signed afresh (as Stripe does
// when it retries, or when you resend an event from the dashboard): the way
// to test that a receiver handles an event delivered twice. It returns an
// error for an unknown event, without a webhook URL, on a transport error or
// an answer other than 2xx.
func (p *Provider) Redeliver(ctx context.Context, eventID string) error {
	p.mu.Lock()
	var rec *eventRec
	for _, e := range p.events {
		if e.ID == eventID {
			rec = e
		}
	}
	p.mu.Unlock()
	if rec == nil {
		return fmt.Errorf("payprovider: no event %s", eventID)
	}
	return p.attempt(ctx, rec)
}

// Flush waits until the automatic deliveries under way have finished
// (delivered or given up), or ctx ends.
func (p *Provider) Flush(ctx context.Context) error {
	p.mu.Lock()
	if p.inflight == 0 {
		p.mu.Unlock()
		return nil
	}
	idle := p.idle
	p.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ensureTickerLocked starts the expiry ticker if sessions are open and it is
// not running. It stops by itself when no session is open.
func (p *Provider) ensureTickerLocked() {
	if p.ticking || p.closed || len(p.open) == 0 {
		return
	}
	p.ticking = true
	p.bg.Add(1)
	go p.tick()
}

func (p *Provider) tick() {
	defer p.bg.Done()
	t := time.NewTicker(tickEvery)
	defer t.Stop()
	for {
		select {
		case <-p.ctx.Done():
			p.mu.Lock()
			p.ticking = false
			p.mu.Unlock()
			return
		case <-t.C:
		}
		p.mu.Lock()
		p.sweepLocked()
		if len(p.open) == 0 {
			p.ticking = false
			p.mu.Unlock()
			return
		}
		p.mu.Unlock()
	}
}
