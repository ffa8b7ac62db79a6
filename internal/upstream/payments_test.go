package upstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

const paymentJSON = `{"id":"pay_1","status":"%s","amountInCents":500,"currency":"EUR","hostedUrl":"http://p/pay/checkout/pay_1","returnUrl":"http://bff/r","reference":"L1","token":"tok","cardNumberMasked":"","cardType":"","refundedInCents":%d,"createdAt":"2026-11-22T10:00:00Z","extra":true}`

func paymentBody(status string, refunded int) string {
	return sprintf(paymentJSON, status, refunded)
}

func newPaymentFake(t *testing.T) (*fakeUpstream, *PaymentClient) {
	f := newFake(t)
	p, err := NewPaymentClient(f.srv.URL+"/pay", "sandbox-pay-key", fastOpts()...)
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

func TestPaymentClient(t *testing.T) {
	f, p := newPaymentFake(t)
	f.reply("POST /pay/api/payments", 201, paymentBody("pending", 0))
	f.reply("GET /pay/api/payments/{id}", 200, paymentBody("partially_refunded", 200))
	f.reply("POST /pay/api/payments/{id}/refunds", 201, `{"id":"rf_1","paymentId":"pay_1","amountInCents":300,"status":"succeeded","createdAt":"2026-11-22T10:05:00Z"}`)
	ctx := WithRequestID(context.Background(), "r1")

	pay, err := p.CreatePayment(ctx, PaymentRequest{AmountCents: 500, Currency: "EUR", ReturnURL: "http://bff/r", IdempotencyKey: "k1", Reference: "L1", Description: "Edit"})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.rawBody("POST /pay/api/payments"); got != `{"amountInCents":500,"currency":"EUR","returnUrl":"http://bff/r","idempotencyKey":"k1","reference":"L1","description":"Edit"}` {
		t.Errorf("body %s", got)
	}
	h := f.header("POST /pay/api/payments")
	if h.Get("Authorization") != "Bearer sandbox-pay-key" || h.Get("X-Request-ID") != "r1" || h.Get("connectapitoken") != "" {
		t.Errorf("headers %v", h)
	}
	if pay.ID != "pay_1" || pay.Status != cinema.PaymentPending || pay.Amount != (cinema.Money{Cents: 500, Currency: "EUR"}) ||
		pay.HostedURL != "http://p/pay/checkout/pay_1" || pay.Token != "tok" || !pay.CreatedAt.Equal(time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("payment %+v", pay)
	}
	if !pay.Refundable().IsZero() {
		t.Error("a pending payment is refundable")
	}

	got, err := p.GetPayment(ctx, "pay_1")
	if err != nil || got.Status != cinema.PaymentPartiallyRefunded || got.Refundable().Cents != 300 {
		t.Errorf("get %+v %v", got, err)
	}
	rf, err := p.Refund(ctx, "pay_1", 300, "rk1")
	if err != nil || rf.ID != "rf_1" || rf.Amount != 300 || !rf.Succeeded() {
		t.Errorf("refund %+v %v", rf, err)
	}
	if got := f.rawBody("POST /pay/api/payments/{id}/refunds"); got != `{"amountInCents":300,"idempotencyKey":"rk1"}` {
		t.Errorf("refund body %s", got)
	}
	if u := f.url("POST /pay/api/payments/{id}/refunds"); u != "/pay/api/payments/pay_1/refunds" {
		t.Errorf("url %s", u)
	}
}

func TestPaymentUnknownStatusIsNotSuccess(t *testing.T) {
	f, p := newPaymentFake(t)
	f.reply("GET /pay/api/payments/{id}", 200, paymentBody("authorised", 0))
	got, err := p.GetPayment(context.Background(), "pay_1")
	if err != nil || got.Status != cinema.PaymentUnknown || got.RawStatus != "authorised" || got.Status.Final() {
		t.Errorf("%+v %v", got, err)
	}
}

func TestPaymentErrors(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   error
	}{
		{"not found", 404, `{"error":"not_found"}`, ErrNotFound},
		{"not paid", 409, `{"error":"payment_not_paid"}`, ErrPaymentNotPaid},
		{"exceeds", 422, `{"error":"amount_exceeds_refundable","message":"only 200 left"}`, ErrRefundExceedsRefundable},
		{"bad key", 401, `{"error":"unauthorized"}`, ErrUnauthorized},
		{"bad request", 400, `{"error":"invalid_amount"}`, ErrInvalidRequest},
		{"down", 502, `bad gateway`, ErrUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, p := newPaymentFake(t)
			f.reply("POST /pay/api/payments/{id}/refunds", tt.status, tt.body)
			_, err := p.Refund(context.Background(), "pay_1", 300, "k")
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if f.count("POST /pay/api/payments/{id}/refunds") != 1 {
				t.Error("a refund was retried")
			}
		})
	}
	f, p := newPaymentFake(t)
	f.reply("POST /pay/api/payments/{id}/refunds", 422, `{"error":"amount_exceeds_refundable","message":"only 200 left"}`)
	_, err := p.Refund(context.Background(), "pay_1", 300, "k")
	var e *Error
	if !errors.As(err, &e) || e.Reason != "amount_exceeds_refundable" || e.Description != "only 200 left" || e.Op != OpRefund {
		t.Errorf("error %#v", e)
	}
}

func TestGetPaymentRetries(t *testing.T) {
	f, p := newPaymentFake(t)
	var calls atomic.Int32
	f.handle("GET /pay/api/payments/{id}", func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(503)
			return
		}
		io.WriteString(w, paymentBody("paid", 0))
	})
	got, err := p.GetPayment(context.Background(), "pay_1")
	if err != nil || got.Status != cinema.PaymentPaid || calls.Load() != 2 {
		t.Errorf("%+v %v after %d calls", got, err, calls.Load())
	}
	if err := p.Ready(); err != nil {
		t.Error(err)
	}
}
