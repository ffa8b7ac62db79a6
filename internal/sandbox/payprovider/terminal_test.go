package payprovider

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/stripe/stripe-go/v85"
)

// Stripe Terminal (server-driven) through stripe-go.

func locationParams() *stripe.TerminalLocationCreateParams {
	return &stripe.TerminalLocationCreateParams{
		DisplayName: stripe.String("Cinema Paradiso box office"),
		Address: &stripe.AddressParams{Line1: stripe.String("1 Main St"), City: stripe.String("Springfield"),
			Country: stripe.String("us"), PostalCode: stripe.String("12345"), State: stripe.String("IL")},
		Metadata: map[string]string{"site": "paradiso"},
	}
}

// location makes a Terminal location.
func (e *env) location() *stripe.TerminalLocation {
	e.t.Helper()
	l, err := e.sc.V1TerminalLocations.Create(ctx, locationParams())
	if err != nil {
		e.t.Fatalf("create location: %v", err)
	}
	return l
}

// reader registers a simulated WisePOS E in a new location.
func (e *env) reader(label string) *stripe.TerminalReader {
	e.t.Helper()
	r, err := e.sc.V1TerminalReaders.Create(ctx, &stripe.TerminalReaderCreateParams{
		RegistrationCode: stripe.String("simulated-wpe"), Label: stripe.String(label), Location: stripe.String(e.location().ID)})
	if err != nil {
		e.t.Fatalf("register reader: %v", err)
	}
	return r
}

// terminalIntent makes a card_present intent; capture "" is the default.
func (e *env) terminalIntent(amount int64, capture string) *stripe.PaymentIntent {
	e.t.Helper()
	params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("eur"),
		PaymentMethodTypes: []*string{stripe.String("card_present")}, Metadata: map[string]string{"ledger_entry": "led_9"}}
	if capture != "" {
		params.CaptureMethod = stripe.String(capture)
	}
	pi, err := e.sc.V1PaymentIntents.Create(ctx, params)
	if err != nil {
		e.t.Fatalf("create intent: %v", err)
	}
	return pi
}

func (e *env) process(readerID, piID string) (*stripe.TerminalReader, error) {
	return e.sc.V1TerminalReaders.ProcessPaymentIntent(ctx, readerID, &stripe.TerminalReaderProcessPaymentIntentParams{
		PaymentIntent: stripe.String(piID)})
}

func (e *env) present(readerID, number string) (*stripe.TerminalReader, error) {
	params := &stripe.TestHelpersTerminalReaderPresentPaymentMethodParams{}
	if number != "" {
		params.CardPresent = &stripe.TestHelpersTerminalReaderPresentPaymentMethodCardPresentParams{Number: stripe.String(number)}
	}
	return e.sc.V1TestHelpersTerminalReaders.PresentPaymentMethod(ctx, readerID, params)
}

func (e *env) intentWithCharge(id string) *stripe.PaymentIntent {
	e.t.Helper()
	pi, err := e.sc.V1PaymentIntents.Retrieve(ctx, id, &stripe.PaymentIntentRetrieveParams{Expand: []*string{stripe.String("latest_charge")}})
	if err != nil {
		e.t.Fatalf("retrieve intent: %v", err)
	}
	return pi
}

// eventTypes are the types of the events made so far, in order.
func (e *env) eventTypes() []string {
	var out []string
	for _, ev := range e.p.Events() {
		out = append(out, ev.Type)
	}
	return out
}

func TestTerminalRegistration(t *testing.T) {
	e := newEnv(t)
	loc := e.location()
	if !strings.HasPrefix(loc.ID, "tml_") || loc.Object != "terminal.location" || loc.DisplayName != "Cinema Paradiso box office" ||
		loc.Address == nil || loc.Address.Country != "US" || loc.Address.City != "Springfield" || loc.Address.Line2 != "" || loc.Metadata["site"] != "paradiso" || loc.Livemode {
		t.Fatalf("location %+v %+v", loc, loc.Address)
	}
	if got, err := e.sc.V1TerminalLocations.Retrieve(ctx, loc.ID, nil); err != nil || got.ID != loc.ID || got.DisplayName != loc.DisplayName {
		t.Errorf("retrieve location: %+v %v", got, err)
	}
	_, err := e.sc.V1TerminalLocations.Retrieve(ctx, "tml_nope", nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("unknown location: %+v", se)
	}

	tests := []struct {
		name       string
		params     *stripe.TerminalReaderCreateParams
		status     int
		code       stripe.ErrorCode
		param      string
		deviceType stripe.TerminalReaderDeviceType
		label      string
	}{
		{"WisePOS E", &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-wpe"), Label: stripe.String("Counter 1"), Location: stripe.String(loc.ID),
			Metadata: map[string]string{"counter": "1"}}, 200, "", "", stripe.TerminalReaderDeviceTypeSimulatedWisePOSE, "Counter 1"},
		{"S700, default label", &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-s700"), Location: stripe.String(loc.ID)},
			200, "", "", stripe.TerminalReaderDeviceTypeSimulatedStripeS700, "simulated-s700"},
		{"unknown code", &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("puppies-plug-fun"), Location: stripe.String(loc.ID)}, 400, "", "registration_code", "", ""},
		{"no code", &stripe.TerminalReaderCreateParams{Location: stripe.String(loc.ID)}, 400, stripe.ErrorCodeParameterMissing, "registration_code", "", ""},
		{"no location", &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-wpe")}, 400, stripe.ErrorCodeParameterMissing, "location", "", ""},
		{"unknown location", &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-wpe"), Location: stripe.String("tml_nope")},
			400, stripe.ErrorCodeResourceMissing, "location", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := e.sc.V1TerminalReaders.Create(ctx, tc.params)
			if tc.status != 200 {
				se := stripeErr(t, err)
				if se.HTTPStatusCode != tc.status || se.Type != stripe.ErrorTypeInvalidRequest || se.Code != tc.code || se.Param != tc.param || se.Msg == "" {
					t.Fatalf("error %+v", se)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(r.ID, "tmr_") || r.Object != "terminal.reader" || r.DeviceType != tc.deviceType || r.Label != tc.label ||
				r.Status != stripe.TerminalReaderStatusOnline || r.SerialNumber != "SIMULATOR" || r.Action != nil || r.Livemode ||
				r.Location == nil || r.Location.ID != loc.ID || r.LastSeenAt != testNow.UnixMilli() || r.IPAddress != "0.0.0.0" {
				t.Fatalf("reader %+v", r)
			}
			var raw map[string]any
			_ = json.Unmarshal(r.LastResponse.RawJSON, &raw)
			if v, ok := raw["action"]; !ok || v != nil || raw["location"] != loc.ID {
				t.Errorf("raw reader %v", raw)
			}
		})
	}
	if se := stripeErr(t, func() error {
		_, err := e.sc.V1TerminalReaders.Create(ctx, &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("nope"), Location: stripe.String(loc.ID)})
		return err
	}()); !strings.Contains(se.Msg, "simulated-wpe") {
		t.Errorf("the refusal of a code should name the codes that work: %q", se.Msg)
	}

	// Locations: required fields, and the list.
	for name, mod := range map[string]func(*stripe.TerminalLocationCreateParams){
		"display_name":     func(p *stripe.TerminalLocationCreateParams) { p.DisplayName = nil },
		"address":          func(p *stripe.TerminalLocationCreateParams) { p.Address = nil },
		"address[country]": func(p *stripe.TerminalLocationCreateParams) { p.Address.Country = nil },
	} {
		params := locationParams()
		mod(params)
		_, err := e.sc.V1TerminalLocations.Create(ctx, params)
		if se := stripeErr(t, err); se.Code != stripe.ErrorCodeParameterMissing || se.Param != name {
			t.Errorf("without %s: %+v", name, se)
		}
	}
	second := e.location()
	var ids []string
	for l, err := range e.sc.V1TerminalLocations.List(ctx, &stripe.TerminalLocationListParams{ListParams: stripe.ListParams{Limit: stripe.Int64(1)}}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.ID)
	}
	if !slices.Equal(ids, []string{second.ID, loc.ID}) {
		t.Errorf("locations %v, want newest first [%s %s]", ids, second.ID, loc.ID)
	}
}

func TestTerminalReaderListAndExpand(t *testing.T) {
	e := newEnv(t)
	busy := e.reader("Counter 1")
	idle := e.reader("Counter 2")
	s700, err := e.sc.V1TerminalReaders.Create(ctx, &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-s700"), Location: stripe.String(idle.Location.ID)})
	if err != nil {
		t.Fatal(err)
	}
	pi := e.terminalIntent(1875, "")
	if _, err := e.process(busy.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.p.SetReaderOffline(idle.ID, true); err != nil {
		t.Fatal(err)
	}

	list := func(mod func(*stripe.TerminalReaderListParams)) []*stripe.TerminalReader {
		t.Helper()
		params := &stripe.TerminalReaderListParams{}
		mod(params)
		var out []*stripe.TerminalReader
		for r, err := range e.sc.V1TerminalReaders.List(ctx, params).All(ctx) {
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r)
		}
		return out
	}
	idsOf := func(rs []*stripe.TerminalReader) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.ID)
		}
		return out
	}
	tests := []struct {
		name string
		mod  func(*stripe.TerminalReaderListParams)
		want []string
	}{
		{"all, newest first", func(*stripe.TerminalReaderListParams) {}, []string{s700.ID, idle.ID, busy.ID}},
		{"pages of one", func(p *stripe.TerminalReaderListParams) { p.Limit = stripe.Int64(1) }, []string{s700.ID, idle.ID, busy.ID}},
		{"after the newest", func(p *stripe.TerminalReaderListParams) { p.StartingAfter = stripe.String(s700.ID) }, []string{idle.ID, busy.ID}},
		{"location", func(p *stripe.TerminalReaderListParams) { p.Location = stripe.String(idle.Location.ID) }, []string{s700.ID, idle.ID}},
		{"offline", func(p *stripe.TerminalReaderListParams) { p.Status = stripe.String("offline") }, []string{idle.ID}},
		{"device type", func(p *stripe.TerminalReaderListParams) { p.DeviceType = stripe.String("simulated_stripe_s700") }, []string{s700.ID}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := idsOf(list(tc.mod)); !slices.Equal(got, tc.want) {
				t.Errorf("readers %v, want %v", got, tc.want)
			}
		})
	}

	// The amount of the payment a reader is taking, in the list and on retrieve.
	expanded := list(func(p *stripe.TerminalReaderListParams) {
		p.AddExpand("data.action.process_payment_intent.payment_intent")
	})
	a := expanded[2].Action
	if a == nil || a.Type != stripe.TerminalReaderActionTypeProcessPaymentIntent || a.Status != stripe.TerminalReaderActionStatusInProgress ||
		a.ProcessPaymentIntent == nil || a.ProcessPaymentIntent.PaymentIntent.ID != pi.ID || a.ProcessPaymentIntent.PaymentIntent.Amount != 1875 ||
		a.ProcessPaymentIntent.PaymentIntent.Currency != "eur" || a.FailureCode != "" {
		t.Fatalf("expanded action %+v", a)
	}
	if expanded[0].Action != nil || expanded[1].Status != stripe.TerminalReaderStatusOffline {
		t.Errorf("other readers %+v %+v", expanded[0], expanded[1])
	}
	plain := list(func(*stripe.TerminalReaderListParams) {})
	if pp := plain[2].Action.ProcessPaymentIntent; pp.PaymentIntent.ID != pi.ID || pp.PaymentIntent.Amount != 0 {
		t.Errorf("unexpanded intent %+v", pp.PaymentIntent)
	}
	params := &stripe.TerminalReaderRetrieveParams{}
	params.AddExpand("action.process_payment_intent.payment_intent")
	params.AddExpand("location")
	got, err := e.sc.V1TerminalReaders.Retrieve(ctx, busy.ID, params)
	if err != nil || got.Action.ProcessPaymentIntent.PaymentIntent.Amount != 1875 || got.Location.DisplayName != "Cinema Paradiso box office" {
		t.Fatalf("retrieve expanded: %+v %v", got, err)
	}
	// The in-progress action's JSON, as Stripe writes it.
	var raw struct {
		Action map[string]any `json:"action"`
	}
	if b, ok := e.rawReader(busy.ID); ok {
		_ = json.Unmarshal(b, &raw)
	}
	if v, ok := raw.Action["failure_code"]; !ok || v != nil || raw.Action["status"] != "in_progress" || raw.Action["type"] != "process_payment_intent" ||
		raw.Action["process_payment_intent"].(map[string]any)["payment_intent"] != pi.ID {
		t.Errorf("raw action %v", raw.Action)
	}

	// Refusals of the list.
	for _, tc := range []struct{ query, param string }{
		{"status=asleep", "status"},
		{"limit=0", "limit"},
		{"limit=101", "limit"},
		{"starting_after=tmr_nope", "starting_after"},
		{"expand[]=action.process_payment_intent.payment_intent", ""}, // a list expands data.…
		{"colour=red", "colour"},
	} {
		q, _ := url.ParseQuery(tc.query)
		res, out := e.raw("GET", "/v1/terminal/readers", "Bearer "+testKey, q)
		er, _ := out["error"].(map[string]any)
		if res.StatusCode != 400 || er["type"] != "invalid_request_error" || (er["param"] != nil && er["param"] != tc.param) || (er["param"] == nil && tc.param != "") {
			t.Errorf("%s: %d %v", tc.query, res.StatusCode, er)
		}
	}
	_, err = e.sc.V1TerminalReaders.Retrieve(ctx, "tmr_nope", nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
		t.Errorf("unknown reader: %+v", se)
	}
}

// rawReader is a reader's JSON as the API answers it.
func (e *env) rawReader(id string) ([]byte, bool) {
	req, _ := http.NewRequest("GET", e.srv.URL+"/v1/terminal/readers/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+testKey)
	res, err := e.c.Do(req)
	if err != nil {
		return nil, false
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return b, err == nil && res.StatusCode == 200
}

func TestTerminalApprovedCard(t *testing.T) {
	tests := []struct {
		name, card, capture string
		wantCapture         stripe.PaymentIntentCaptureMethod
		brand, last4        string
		status              stripe.PaymentIntentStatus
		events              []string
	}{
		{"default card", "", "", stripe.PaymentIntentCaptureMethodAutomaticAsync, "visa", "4242", stripe.PaymentIntentStatusSucceeded,
			[]string{EventPaymentIntentSucceeded, EventTerminalReaderActionSucceeded}},
		{"mastercard, automatic", "5555555555554444", "automatic", stripe.PaymentIntentCaptureMethodAutomatic, "mastercard", "4444", stripe.PaymentIntentStatusSucceeded,
			[]string{EventPaymentIntentSucceeded, EventTerminalReaderActionSucceeded}},
		{"visa, manual capture", "4242424242424242", "manual", stripe.PaymentIntentCaptureMethodManual, "visa", "4242", stripe.PaymentIntentStatusRequiresCapture,
			[]string{EventPaymentIntentAmountCapturableUpdated, EventTerminalReaderActionSucceeded}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.reader("Counter 1")
			pi := e.terminalIntent(2650, tc.capture)
			if pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || !slices.Equal(pi.PaymentMethodTypes, []string{"card_present"}) || pi.Amount != 2650 {
				t.Fatalf("new intent %+v", pi)
			}
			got, err := e.process(r.ID, pi.ID)
			if err != nil || got.Action == nil || got.Action.Status != stripe.TerminalReaderActionStatusInProgress || got.Action.ProcessPaymentIntent.PaymentIntent.ID != pi.ID {
				t.Fatalf("process: %+v %v", got, err)
			}
			got, err = e.present(r.ID, tc.card)
			if err != nil {
				t.Fatal(err)
			}
			if a := got.Action; a.Status != stripe.TerminalReaderActionStatusSucceeded || a.Type != stripe.TerminalReaderActionTypeProcessPaymentIntent ||
				a.ProcessPaymentIntent.PaymentIntent.ID != pi.ID || a.FailureCode != "" || a.FailureMessage != "" {
				t.Fatalf("action after the tap %+v", a)
			}
			after := e.intentWithCharge(pi.ID)
			if after.Status != tc.status || after.LastPaymentError != nil || after.LatestCharge == nil || after.PaymentMethod == nil {
				t.Fatalf("intent after the tap %+v", after)
			}
			ch := after.LatestCharge
			d := ch.PaymentMethodDetails
			if d.Type != "card_present" || d.Card != nil || d.CardPresent == nil || string(d.CardPresent.Brand) != tc.brand || d.CardPresent.Last4 != tc.last4 ||
				d.CardPresent.ExpMonth != 12 || d.CardPresent.ExpYear != 2030 || d.CardPresent.ReadMethod != "contactless_emv" || d.CardPresent.Reader != r.ID ||
				d.CardPresent.AmountAuthorized != 2650 || d.CardPresent.Receipt == nil {
				t.Fatalf("payment_method_details %+v %+v", d, d.CardPresent)
			}
			manual := tc.capture == "manual"
			if ch.Amount != 2650 || ch.Captured == manual || (ch.AmountCaptured == 0) != manual || (after.AmountCapturable == 2650) != manual ||
				(after.AmountReceived == 2650) == manual || after.CaptureMethod != tc.wantCapture {
				t.Errorf("charge %+v, intent %+v", ch, after)
			}
			// The Go view and the events.
			if view, _ := e.p.Get(pi.ID); view.CardType != strings.ToUpper(tc.brand) || view.CardNumberMasked != "************"+tc.last4 {
				t.Errorf("view %+v", view)
			}
			if got := e.eventTypes(); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			e.flush()
			seen := map[string]stripe.Event{}
			for _, h := range e.hook.requests() {
				ev := verify(t, h, testSecret)
				seen[string(ev.Type)] = ev
			}
			rev, ok := seen[EventTerminalReaderActionSucceeded]
			if !ok || len(seen) != 2 {
				t.Fatalf("webhooks %v", seen)
			}
			var evReader stripe.TerminalReader
			if err := json.Unmarshal(rev.Data.Raw, &evReader); err != nil {
				t.Fatal(err)
			}
			if evReader.ID != r.ID || evReader.Action.Status != stripe.TerminalReaderActionStatusSucceeded || evReader.Action.ProcessPaymentIntent.PaymentIntent.ID != pi.ID ||
				rev.Request == nil || !strings.HasPrefix(rev.Request.ID, "req_") {
				t.Errorf("reader event %+v %+v", evReader, rev.Request)
			}
			var evIntent stripe.PaymentIntent
			_ = json.Unmarshal(seen[tc.events[0]].Data.Raw, &evIntent)
			if evIntent.ID != pi.ID || evIntent.Status != tc.status || evIntent.Metadata["ledger_entry"] != "led_9" {
				t.Errorf("intent event %+v", evIntent)
			}
			// The reader is free for the next payment.
			if _, err := e.process(r.ID, e.terminalIntent(500, "").ID); err != nil {
				t.Errorf("next payment: %v", err)
			}
		})
	}
}

func TestTerminalDeclinedCard(t *testing.T) {
	tests := []struct {
		name, card, code, declineCode, message string
	}{
		{"generic decline", "4000000000000002", "card_declined", "generic_decline", "Your card was declined."},
		{"insufficient funds", "4000000000009995", "card_declined", "insufficient_funds", "Your card has insufficient funds."},
		{"expired card", "4000000000000069", "expired_card", "expired_card", "Your card has expired."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			r := e.reader("Counter 1")
			pi := e.terminalIntent(1000, "")
			if _, err := e.process(r.ID, pi.ID); err != nil {
				t.Fatal(err)
			}
			got, err := e.present(r.ID, tc.card)
			if err != nil {
				t.Fatal(err)
			}
			if a := got.Action; a.Status != stripe.TerminalReaderActionStatusFailed || a.FailureCode != tc.code || a.FailureMessage != tc.message ||
				a.ProcessPaymentIntent.PaymentIntent.ID != pi.ID {
				t.Fatalf("action %+v", a)
			}
			after := e.intentWithCharge(pi.ID)
			lpe := after.LastPaymentError
			if after.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || after.LatestCharge != nil || lpe == nil ||
				lpe.Type != stripe.ErrorTypeCard || string(lpe.Code) != tc.code || string(lpe.DeclineCode) != tc.declineCode || lpe.Msg != tc.message {
				t.Fatalf("intent %+v %+v", after, lpe)
			}
			want := []string{EventPaymentIntentPaymentFailed, EventTerminalReaderActionFailed}
			if got := e.eventTypes(); !slices.Equal(got, want) {
				t.Errorf("events %v, want %v", got, want)
			}
			// Another try on the same intent, same reader: approved.
			if _, err := e.process(r.ID, pi.ID); err != nil {
				t.Fatalf("second process: %v", err)
			}
			if got, err := e.present(r.ID, "4242424242424242"); err != nil || got.Action.Status != stripe.TerminalReaderActionStatusSucceeded {
				t.Fatalf("second tap: %+v %v", got, err)
			}
			if after := e.intentWithCharge(pi.ID); after.Status != stripe.PaymentIntentStatusSucceeded || after.LastPaymentError != nil {
				t.Errorf("after the second tap %+v", after)
			}
		})
	}
}

func TestTerminalCancelAction(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Counter 1")
	pi := e.terminalIntent(1000, "")
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	got, err := e.sc.V1TerminalReaders.CancelAction(ctx, r.ID, nil)
	if err != nil || got.Action != nil || got.Status != stripe.TerminalReaderStatusOnline {
		t.Fatalf("cancel_action: %+v %v", got, err)
	}
	var raw map[string]any
	_ = json.Unmarshal(got.LastResponse.RawJSON, &raw)
	if v, ok := raw["action"]; !ok || v != nil {
		t.Errorf("action after cancel_action %#v, want null", v)
	}
	if after := e.intentWithCharge(pi.ID); after.Status != stripe.PaymentIntentStatusRequiresPaymentMethod {
		t.Errorf("intent after cancel_action %+v", after)
	}
	_, err = e.sc.V1TerminalReaders.CancelAction(ctx, r.ID, nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Type != stripe.ErrorTypeInvalidRequest || se.Code != "" || !strings.Contains(se.Msg, "no action in progress") {
		t.Errorf("cancel without an action: %+v", se)
	}
	if _, err := e.present(r.ID, ""); err == nil {
		t.Error("a tap after cancel_action went through")
	}
	if n := len(e.p.Events()); n != 0 {
		t.Errorf("%d events, want none", n)
	}
	if got, err := e.process(r.ID, pi.ID); err != nil || got.Action.Status != stripe.TerminalReaderActionStatusInProgress {
		t.Errorf("process again: %+v %v", got, err)
	}
}

func TestTerminalRefusals(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Counter 1")
	other := e.reader("Counter 2")
	offline := e.reader("Counter 3")
	if err := e.p.SetReaderOffline(offline.ID, true); err != nil {
		t.Fatal(err)
	}
	taken := e.terminalIntent(1000, "")
	if _, err := e.process(r.ID, taken.ID); err != nil {
		t.Fatal(err)
	}
	free := e.terminalIntent(1000, "")
	cardOnly, err := e.sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("eur"),
		PaymentMethodTypes: []*string{stripe.String("card")}})
	if err != nil {
		t.Fatal(err)
	}
	paid := e.terminalIntent(1000, "")
	if _, err := e.process(other.ID, paid.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.present(other.ID, ""); err != nil {
		t.Fatal(err)
	}
	canceled := e.terminalIntent(1000, "")
	if _, err := e.sc.V1PaymentIntents.Cancel(ctx, canceled.ID, nil); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, reader, intent string
		status               int
		code                 stripe.ErrorCode
		param                string
	}{
		{"busy reader", r.ID, free.ID, 400, stripe.ErrorCodeTerminalReaderBusy, ""},
		{"offline reader", offline.ID, free.ID, 400, stripe.ErrorCodeTerminalReaderOffline, ""},
		{"unknown intent", other.ID, "pi_nope", 400, stripe.ErrorCodeResourceMissing, "payment_intent"},
		{"intent without card_present", other.ID, cardOnly.ID, 400, "", "payment_intent"},
		{"succeeded intent", other.ID, paid.ID, 400, stripe.ErrorCodePaymentIntentUnexpectedState, "payment_intent"},
		{"canceled intent", other.ID, canceled.ID, 400, stripe.ErrorCodePaymentIntentUnexpectedState, "payment_intent"},
		{"intent on another reader", other.ID, taken.ID, 400, stripe.ErrorCodePaymentIntentUnexpectedState, "payment_intent"},
		{"unknown reader", "tmr_nope", free.ID, 404, stripe.ErrorCodeResourceMissing, "id"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.process(tc.reader, tc.intent)
			if se := stripeErr(t, err); se.HTTPStatusCode != tc.status || se.Type != stripe.ErrorTypeInvalidRequest || se.Code != tc.code || se.Param != tc.param || se.Msg == "" {
				t.Errorf("error %+v", se)
			}
		})
	}
	if got, _ := e.p.Reader(r.ID); got.Action.PaymentIntentID != taken.ID || got.Action.Status != ActionInProgress {
		t.Errorf("the busy reader's action changed: %+v", got.Action)
	}

	// The test helper refuses too.
	presents := []struct {
		name   string
		reader string
		params *stripe.TestHelpersTerminalReaderPresentPaymentMethodParams
		code   stripe.ErrorCode
		param  string
	}{
		{"no action", other.ID, nil, "", ""},
		{"offline", offline.ID, nil, stripe.ErrorCodeTerminalReaderOffline, ""},
		{"not a card number", r.ID, &stripe.TestHelpersTerminalReaderPresentPaymentMethodParams{
			CardPresent: &stripe.TestHelpersTerminalReaderPresentPaymentMethodCardPresentParams{Number: stripe.String("4242424242424241")}}, "", "card_present[number]"},
		{"interac", r.ID, &stripe.TestHelpersTerminalReaderPresentPaymentMethodParams{Type: stripe.String("interac_present")}, "", "type"},
	}
	for _, tc := range presents {
		t.Run("present: "+tc.name, func(t *testing.T) {
			_, err := e.sc.V1TestHelpersTerminalReaders.PresentPaymentMethod(ctx, tc.reader, tc.params)
			if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != tc.code || se.Param != tc.param {
				t.Errorf("error %+v", se)
			}
		})
	}
	if got, _ := e.p.Reader(r.ID); got.Action.Status != ActionInProgress {
		t.Errorf("a refused tap changed the action: %+v", got.Action)
	}
	if n := len(e.p.Events()); n != 3 { // the payment of paid, the cancel of canceled
		t.Errorf("%d events, want 3", n)
	}
}

func TestTerminalIntents(t *testing.T) {
	e := newEnv(t)
	valid := func() url.Values {
		return url.Values{"amount": {"1000"}, "currency": {"eur"}, "payment_method_types[]": {"card_present"}}
	}
	tests := []struct {
		name   string
		form   url.Values
		code   string
		param  string
		status int
	}{
		{"valid", valid(), "", "", 200},
		{"manual capture, suffix, description", with(valid(), "capture_method", "manual", "statement_descriptor_suffix", "SCREEN 3", "description", "2 tickets"), "", "", 200},
		{"missing amount", with(valid(), "amount", "\x00"), "parameter_missing", "amount", 400},
		{"amount not an integer", with(valid(), "amount", "10.00"), "parameter_invalid_integer", "amount", 400},
		{"below the minimum", with(valid(), "amount", "49"), "amount_too_small", "amount", 400},
		{"too large", with(valid(), "amount", "100000000"), "amount_too_large", "amount", 400},
		{"missing currency", with(valid(), "currency", "\x00"), "parameter_missing", "currency", 400},
		{"bad currency", with(valid(), "currency", "euro"), "", "currency", 400},
		{"unknown method type", with(valid(), "payment_method_types[]", "sepa_debit"), "", "payment_method_types[0]", 400},
		{"bad capture method", with(valid(), "capture_method", "later"), "", "capture_method", 400},
		{"bad suffix", with(valid(), "statement_descriptor_suffix", "12345"), "", "statement_descriptor_suffix", 400},
		{"confirm is not modelled", with(valid(), "confirm", "true"), "parameter_unknown", "confirm", 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, out := e.raw("POST", "/v1/payment_intents", "Bearer "+testKey, tc.form)
			if res.StatusCode != tc.status {
				t.Fatalf("status %d %v", res.StatusCode, out)
			}
			if tc.status == 200 {
				if out["object"] != "payment_intent" || out["status"] != "requires_payment_method" || out["amount"] != 1000.0 || out["latest_charge"] != nil {
					t.Errorf("intent %v", out)
				}
				return
			}
			er, _ := out["error"].(map[string]any)
			if code, _ := er["code"].(string); code != tc.code || er["type"] != "invalid_request_error" {
				t.Errorf("error %v, want code %q", er, tc.code)
			}
			if param, _ := er["param"].(string); param != tc.param {
				t.Errorf("param %q, want %q", param, tc.param)
			}
		})
	}

	// Cancel: allowed from requires_payment_method and requires_capture,
	// refused once succeeded or canceled.
	t.Run("cancel", func(t *testing.T) {
		r := e.reader("Counter 1")
		pi := e.terminalIntent(1000, "")
		if _, err := e.process(r.ID, pi.ID); err != nil {
			t.Fatal(err)
		}
		params := &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String("requested_by_customer")}
		got, err := e.sc.V1PaymentIntents.Cancel(ctx, pi.ID, params)
		if err != nil || got.Status != stripe.PaymentIntentStatusCanceled || got.CancellationReason != "requested_by_customer" || got.CanceledAt != testNow.Unix() {
			t.Fatalf("cancel: %+v %v", got, err)
		}
		if rd, _ := e.p.Reader(r.ID); rd.Action != nil {
			t.Errorf("the reader still takes a canceled intent: %+v", rd.Action)
		}
		_, err = e.sc.V1PaymentIntents.Cancel(ctx, pi.ID, nil)
		if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != stripe.ErrorCodePaymentIntentUnexpectedState || !strings.Contains(se.Msg, "status of canceled") {
			t.Errorf("second cancel: %+v", se)
		}

		held := e.terminalIntent(1500, "manual")
		if _, err := e.process(r.ID, held.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.present(r.ID, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := e.sc.V1PaymentIntents.Cancel(ctx, held.ID, nil); err != nil {
			t.Fatalf("cancel requires_capture: %v", err)
		}
		if ch := e.intentWithCharge(held.ID).LatestCharge; ch.Captured || !ch.Refunded || ch.AmountRefunded != 1500 {
			t.Errorf("released authorization %+v", ch)
		}
		_, err = e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(held.ID)})
		if se := stripeErr(t, err); se.Code != stripe.ErrorCodePaymentIntentUnexpectedState {
			t.Errorf("refund of a canceled intent: %+v", se)
		}

		done := e.terminalIntent(1000, "")
		if _, err := e.process(r.ID, done.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := e.present(r.ID, ""); err != nil {
			t.Fatal(err)
		}
		_, err = e.sc.V1PaymentIntents.Cancel(ctx, done.ID, nil)
		if se := stripeErr(t, err); se.HTTPStatusCode != 400 || se.Code != stripe.ErrorCodePaymentIntentUnexpectedState || !strings.Contains(se.Msg, "status of succeeded") {
			t.Errorf("cancel a succeeded intent: %+v", se)
		}
		_, err = e.sc.V1PaymentIntents.Cancel(ctx, "pi_nope", nil)
		if se := stripeErr(t, err); se.HTTPStatusCode != 404 || se.Code != stripe.ErrorCodeResourceMissing {
			t.Errorf("cancel an unknown intent: %+v", se)
		}
		_, err = e.sc.V1PaymentIntents.Cancel(ctx, done.ID, &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String("bored")})
		if se := stripeErr(t, err); se.Param != "cancellation_reason" {
			t.Errorf("bad reason: %+v", se)
		}
		var canceled []string
		for _, ev := range e.p.Events() {
			if ev.Type == EventPaymentIntentCanceled {
				canceled = append(canceled, ev.ObjectID)
			}
		}
		if !slices.Equal(canceled, []string{pi.ID, held.ID}) {
			t.Errorf("payment_intent.canceled for %v", canceled)
		}
	})

	// A connector payment's intent canceled through the API: the payment is cancelled and its subscribers hear of it.
	t.Run("cancel a connector payment", func(t *testing.T) {
		pay, err := e.p.Create(connectorRequest(700, ""))
		if err != nil {
			t.Fatal(err)
		}
		heard := make(chan Payment, 1)
		e.p.Subscribe(func(p Payment) {
			if p.ID == pay.ID {
				heard <- p
			}
		})
		if _, err := e.sc.V1PaymentIntents.Cancel(ctx, pay.ID, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case p := <-heard:
			if p.Status != StatusCancelled {
				t.Errorf("notified %+v", p)
			}
		default:
			t.Error("no notification")
		}
	})
}

func TestTerminalRefund(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Counter 1")
	pi := e.terminalIntent(2000, "")
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.present(r.ID, "5555555555554444"); err != nil {
		t.Fatal(err)
	}
	rf, err := e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(pi.ID), Amount: stripe.Int64(500)})
	if err != nil || rf.Amount != 500 || rf.Status != stripe.RefundStatusSucceeded || rf.PaymentIntent.ID != pi.ID {
		t.Fatalf("refund: %+v %v", rf, err)
	}
	ch := e.intentWithCharge(pi.ID).LatestCharge
	if ch.AmountRefunded != 500 || ch.Refunded || ch.PaymentMethodDetails.CardPresent.Last4 != "4444" {
		t.Errorf("charge after the refund %+v", ch)
	}
	if view, _ := e.p.Get(pi.ID); view.Status != StatusPartiallyRefunded || view.RefundedInCents != 500 {
		t.Errorf("view %+v", view)
	}
	ev, ok := e.p.LastEvent(EventChargeRefunded)
	var evCharge stripe.Charge
	if ok {
		var body struct {
			Data struct {
				Object json.RawMessage `json:"object"`
			} `json:"data"`
		}
		_ = json.Unmarshal(ev.Payload, &body)
		_ = json.Unmarshal(body.Data.Object, &evCharge)
	}
	if !ok || evCharge.PaymentMethodDetails == nil || evCharge.PaymentMethodDetails.Type != "card_present" || evCharge.AmountRefunded != 500 {
		t.Errorf("charge.refunded %+v", evCharge)
	}
	// The rest, through the Go API.
	if rf, err := e.p.Refund(pi.ID, 1500, "rest"); err != nil || rf.Amount != 1500 {
		t.Errorf("Refund: %+v %v", rf, err)
	}
	// The refunds of that payment, listed as a test-mode integration checks them; another
	// payment's refund is not among them.
	other := e.terminalIntent(700, "")
	if _, err := e.process(r.ID, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.present(r.ID, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := e.sc.V1Refunds.Create(ctx, &stripe.RefundCreateParams{PaymentIntent: stripe.String(other.ID)}); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for got, err := range e.sc.V1Refunds.List(ctx, &stripe.RefundListParams{PaymentIntent: stripe.String(pi.ID)}).All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		listed = append(listed, fmt.Sprintf("%s %d", got.PaymentIntent.ID, got.Amount))
	}
	if len(listed) != 2 || listed[0] != pi.ID+" 1500" || listed[1] != pi.ID+" 500" { // newest first
		t.Errorf("GET /v1/refunds?payment_intent=%s: %v", pi.ID, listed)
	}
}

func TestTerminalIdempotency(t *testing.T) {
	e := newEnv(t)
	r := e.reader("Counter 1")
	create := func(key string, amount int64) (*stripe.PaymentIntent, error) {
		params := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("eur"), PaymentMethodTypes: []*string{stripe.String("card_present")}}
		params.SetIdempotencyKey(key)
		return e.sc.V1PaymentIntents.Create(ctx, params)
	}
	first, err := create("pi-1", 1000)
	if err != nil {
		t.Fatal(err)
	}
	again, err := create("pi-1", 1000)
	if err != nil || again.ID != first.ID || again.LastResponse.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("repeat: %+v %v", again, err)
	}
	if _, err := create("pi-1", 1001); stripeErr(t, err).Type != stripe.ErrorTypeIdempotency {
		t.Errorf("same key, other amount: %v", err)
	}
	n := 0
	for range e.p.intents {
		n++
	}
	if n != 1 {
		t.Errorf("%d intents, want 1", n)
	}
	// A repeated process answers the first answer (the reader is not busy with itself).
	process := func(key, pi string) (*stripe.TerminalReader, error) {
		params := &stripe.TerminalReaderProcessPaymentIntentParams{PaymentIntent: stripe.String(pi)}
		params.SetIdempotencyKey(key)
		return e.sc.V1TerminalReaders.ProcessPaymentIntent(ctx, r.ID, params)
	}
	for range 2 {
		if got, err := process("proc-1", first.ID); err != nil || got.Action.Status != stripe.TerminalReaderActionStatusInProgress {
			t.Fatalf("process with a key: %+v %v", got, err)
		}
	}
	// A refusal on the state of things is replayed, even once the state changed.
	second, _ := create("pi-2", 700)
	for range 2 {
		if _, err := process("proc-2", second.ID); stripeErr(t, err).Code != stripe.ErrorCodeTerminalReaderBusy {
			t.Errorf("busy: %v", err)
		}
	}
	if _, err := e.sc.V1TerminalReaders.CancelAction(ctx, r.ID, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := process("proc-2", second.ID); stripeErr(t, err).Code != stripe.ErrorCodeTerminalReaderBusy {
		t.Errorf("replayed refusal: %v", err)
	}
	if _, err := process("proc-3", second.ID); err != nil {
		t.Errorf("a new key: %v", err)
	}
	// Readers, too.
	params := &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-wpe"), Location: stripe.String(r.Location.ID)}
	params.SetIdempotencyKey("reader-1")
	a, err1 := e.sc.V1TerminalReaders.Create(ctx, params)
	b, err2 := e.sc.V1TerminalReaders.Create(ctx, params)
	if err1 != nil || err2 != nil || a.ID != b.ID {
		t.Errorf("reader repeat: %v %v %v %v", a, b, err1, err2)
	}
}

func TestTerminalReaderUpdateAndDelete(t *testing.T) {
	e := newEnv(t)
	r, err := e.sc.V1TerminalReaders.Create(ctx, &stripe.TerminalReaderCreateParams{RegistrationCode: stripe.String("simulated-wpe"),
		Location: stripe.String(e.location().ID), Metadata: map[string]string{"a": "1", "b": "2"}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := e.sc.V1TerminalReaders.Update(ctx, r.ID, &stripe.TerminalReaderUpdateParams{Label: stripe.String("Front desk"),
		Metadata: map[string]string{"b": "", "c": "3"}})
	if err != nil || got.Label != "Front desk" || len(got.Metadata) != 2 || got.Metadata["a"] != "1" || got.Metadata["c"] != "3" {
		t.Fatalf("update: %+v %v", got, err)
	}
	if res, out := e.raw("POST", "/v1/terminal/readers/"+r.ID, "Bearer "+testKey, url.Values{"metadata": {""}}); res.StatusCode != 200 || len(out["metadata"].(map[string]any)) != 0 {
		t.Errorf("metadata= : %v", out)
	}
	if res, out := e.raw("POST", "/v1/terminal/readers/"+r.ID, "Bearer "+testKey, url.Values{"location": {"tml_x"}}); res.StatusCode != 400 {
		t.Errorf("a location change is not modelled: %v", out)
	}
	del, err := e.sc.V1TerminalReaders.Delete(ctx, r.ID, nil)
	if err != nil || !del.Deleted || del.ID != r.ID {
		t.Fatalf("delete: %+v %v", del, err)
	}
	_, err = e.sc.V1TerminalReaders.Retrieve(ctx, r.ID, nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 {
		t.Errorf("retrieve a deleted reader: %+v", se)
	}
	_, err = e.sc.V1TerminalReaders.Delete(ctx, r.ID, nil)
	if se := stripeErr(t, err); se.HTTPStatusCode != 404 {
		t.Errorf("delete twice: %+v", se)
	}
	if len(e.p.Readers()) != 0 {
		t.Errorf("readers %+v", e.p.Readers())
	}
}

func TestTerminalGoAPI(t *testing.T) {
	e := newEnv(t)
	seeded := e.p.SeedReader("tmr_seed1", "Box office")
	if seeded.ID != "tmr_seed1" || seeded.Label != "Box office" || seeded.DeviceType != "simulated_wisepos_e" || seeded.Status != ReaderOnline || seeded.LocationID == "" {
		t.Fatalf("seeded %+v", seeded)
	}
	if again := e.p.SeedReader("tmr_seed1", "other"); again.Label != "Box office" {
		t.Errorf("seed twice: %+v", again)
	}
	second := e.p.SeedReader("", "")
	if second.LocationID != seeded.LocationID || !strings.HasPrefix(second.ID, "tmr_") {
		t.Errorf("second seed %+v", second)
	}
	if got, err := e.sc.V1TerminalReaders.Retrieve(ctx, "tmr_seed1", nil); err != nil || got.Location.ID != seeded.LocationID {
		t.Errorf("the seeded reader through the API: %+v %v", got, err)
	}

	pi := e.terminalIntent(1250, "")
	if _, err := e.process("tmr_seed1", pi.ID); err != nil {
		t.Fatal(err)
	}
	rs := e.p.Readers()
	if len(rs) != 2 || rs[0].ID != "tmr_seed1" || rs[0].Action == nil || rs[0].Action.Amount != 1250 || rs[0].Action.Currency != "eur" ||
		rs[0].Action.PaymentIntentID != pi.ID || rs[0].Action.Status != ActionInProgress {
		t.Fatalf("readers %+v", rs)
	}
	rs[0].Action.Status = "tampered" // a snapshot
	if r, _ := e.p.Reader("tmr_seed1"); r.Action.Status != ActionInProgress {
		t.Error("Readers returned the reader itself")
	}

	errs := []struct {
		name   string
		reader string
		card   string
		want   error
	}{
		{"unknown reader", "tmr_nope", "", ErrReaderNotFound},
		{"no action", second.ID, "", ErrNoReaderAction},
		{"not a card", "tmr_seed1", "1234", ErrInvalidRequest},
	}
	for _, tc := range errs {
		if err := e.p.PresentPaymentMethod(tc.reader, tc.card); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := e.p.SetReaderOffline("tmr_nope", true); !errors.Is(err, ErrReaderNotFound) {
		t.Errorf("offline unknown: %v", err)
	}
	if err := e.p.SetReaderOffline("tmr_seed1", true); err != nil {
		t.Fatal(err)
	}
	if err := e.p.PresentPaymentMethod("tmr_seed1", ""); !errors.Is(err, ErrReaderOffline) {
		t.Errorf("tap on an offline reader: %v", err)
	}
	if err := e.p.SetReaderOffline("tmr_seed1", false); err != nil {
		t.Fatal(err)
	}
	if err := e.p.PresentPaymentMethod("tmr_seed1", "4000 0000 0000 0002"); err != nil {
		t.Fatalf("declined tap: %v", err)
	}
	if r, _ := e.p.Reader("tmr_seed1"); r.Action.Status != ActionFailed || r.Action.FailureCode != "card_declined" {
		t.Errorf("after a declined tap %+v", r.Action)
	}
	ev, _ := e.p.LastEvent(EventTerminalReaderActionFailed)
	var body struct {
		Request struct {
			ID *string `json:"id"`
		} `json:"request"`
	}
	_ = json.Unmarshal(ev.Payload, &body)
	if ev.ObjectID != "tmr_seed1" || body.Request.ID != nil {
		t.Errorf("event of a Go API tap %+v (request %v)", ev, body.Request.ID)
	}
}

func TestTerminalPage(t *testing.T) {
	e := newEnv(t)
	res, page := e.terminalPage()
	if res.StatusCode != 200 || !strings.Contains(page, "No reader is registered yet") {
		t.Fatalf("empty page: %d %s", res.StatusCode, page)
	}
	r := e.reader(`Counter <1> & "friends"`)
	idle := e.reader("Counter 2")
	pi := e.terminalIntent(123450, "")
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	res, page = e.terminalPage()
	for _, want := range []string{"Counter &lt;1&gt; &amp; &#34;friends&#34;", r.ID, idle.ID, "Cinema Paradiso box office", "Waiting for a card", "€1,234.50", pi.ID,
		">Tap an approved card</button>", ">Tap a declined card</button>", `action="` + e.p.TerminalURL() + "/" + r.ID + `/present"`, `name="viewport"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<1>") || strings.Contains(page, idle.ID+"/present") || strings.Contains(page, "<script") {
		t.Errorf("page: unescaped label, buttons for an idle reader, or a script:\n%s", page)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "form-action 'self'") {
		t.Errorf("CSP %q", csp)
	}

	// Tap a declined card, then an approved one.
	res, _ = e.pressTerminal(r.ID, tapDeclinedCard)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != e.p.TerminalURL() {
		t.Fatalf("declined tap: %d %q", res.StatusCode, res.Header.Get("Location"))
	}
	if _, page := e.terminalPage(); !strings.Contains(page, "Declined: Your card was declined.") || strings.Contains(page, r.ID+"/present") {
		t.Errorf("page after a decline: %s", page)
	}
	if _, err := e.process(r.ID, pi.ID); err != nil {
		t.Fatal(err)
	}
	if res, _ := e.pressTerminal(r.ID, tapApprovedCard); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("approved tap: %d", res.StatusCode)
	}
	if after := e.intentWithCharge(pi.ID); after.Status != stripe.PaymentIntentStatusSucceeded || after.LatestCharge.PaymentMethodDetails.CardPresent.Last4 != "4242" {
		t.Errorf("intent after the page's tap %+v", after)
	}
	if _, page := e.terminalPage(); !strings.Contains(page, "Approved") {
		t.Errorf("page after approval: %s", page)
	}

	// A tap that cannot happen shows the page with the reason.
	for _, tc := range []struct {
		reader string
		status int
		want   string
	}{
		{r.ID, http.StatusConflict, "is not waiting for a card"},
		{"tmr_nope", http.StatusNotFound, "There is no reader tmr_nope"},
	} {
		res, page := e.pressTerminal(tc.reader, tapApprovedCard)
		if res.StatusCode != tc.status || !strings.Contains(page, tc.want) || !strings.Contains(page, `role="alert"`) {
			t.Errorf("%s: %d %s", tc.reader, res.StatusCode, page)
		}
	}
}

func (e *env) terminalPage() (*http.Response, string) {
	e.t.Helper()
	res, err := e.c.Get(e.srv.URL + "/pay/terminal")
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

func (e *env) pressTerminal(readerID, number string) (*http.Response, string) {
	e.t.Helper()
	res, err := e.c.PostForm(e.srv.URL+"/pay/terminal/"+readerID+"/present", url.Values{"number": {number}})
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}
