package bff_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/text/language"

	"github.com/cinemabff/cinemabff/internal/bff"
	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
	"github.com/cinemabff/cinemabff/internal/i18n"
	"github.com/cinemabff/cinemabff/internal/mail"
	"github.com/cinemabff/cinemabff/internal/mail/smtptest"
	"github.com/cinemabff/cinemabff/internal/storage"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// TestCustomerMailOverSMTPTwoReplicasAndAnOutage: with -smtp-url pointing at a real SMTP
// server, a purchase and a swap made on one replica are delivered by whichever of two
// replicas sharing the PostgreSQL database claims them, once each; while the server is down
// nothing is lost, and after it comes back every message arrives once.
func TestCustomerMailOverSMTPTwoReplicasAndAnOutage(t *testing.T) {
	relay := smtptest.Start(t, "127.0.0.1:0")
	transport, err := mail.NewSMTP(relay.URL(), mail.WithTLSConfig(smtptest.ClientTLS(t)), mail.WithDialTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	pg := testenv.PostgresURL(t)
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, DatabaseURL: pg, SessionStore: storage.SessionsPostgres, MailTransport: transport,
		MailBackoff: func(int) time.Duration { return 10 * time.Millisecond }})
	bfftest.AddBookingBinder(h)

	// A second replica: its own connections to the same database, the same upstream and keys.
	db2, err := storage.Open(context.Background(), pg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db2.Close() })
	s := h.Srv
	replica2, err := bff.New(bff.Deps{Config: s.Config, Logger: s.Kernel.Logger, DB: db2, SessionStore: h.Store, Device: s.Kernel.Devices, Assets: s.Kernel.Assets,
		Ticketing: s.Kernel.Ticketing, Payments: s.Payments, Storage: db2, Now: s.Kernel.Now, Background: context.Background(), Mail: h.MailDeps})
	if err != nil {
		t.Fatal(err)
	}

	// The server goes down before anything is sent.
	addr := relay.Addr
	relay.Stop()

	h.BuyUpToSummary("1113", bfftest.TwoAdults())
	body := h.WaitForConfirmation(h.ActAtProvider(h.PressPay(), "pay"), 5*time.Second)
	number := strings.TrimSpace(h.Doc(body).Find(`[data-testid="booking-number"]`).Text())
	bfftest.BindBooking(h, 100004)
	bfftest.SwapThrough(t, h, 100004, []string{"3"}, []string{bfftest.Seat(1, 2, 2)})

	deliverBoth := func() {
		var wg sync.WaitGroup
		for _, r := range []*bff.Server{h.Srv, replica2} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, _ = r.DeliverMail(context.Background()) // failures are recorded on the messages
			}()
		}
		wg.Wait()
	}
	for range 3 {
		deliverBoth()
		time.Sleep(15 * time.Millisecond)
	}
	pending := 0
	msgs, err := h.Srv.Mail.Outbox.Recent(context.Background(), 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.State == mail.StateSent {
			t.Fatalf("message %s sent while the server was down", m.Kind)
		}
		if m.State == mail.StatePending && m.LastError != "" && m.Attempts > 0 {
			pending++
		}
	}
	if len(msgs) != 2 || pending != 2 {
		t.Fatalf("during the outage: %d messages, %d waiting with an error: %+v", len(msgs), pending, msgs)
	}
	// The page says where the message stands, and never "sent".
	if line := h.Srv.Visits.MailLine(i18n.NewContext(context.Background(), h.Srv.Kernel.Langs.For(language.English)), msgs[0].Key); !strings.Contains(line, "on its way") {
		t.Fatalf("during the outage the page would say %q", line)
	}

	// The server is back on the same address.
	relay = smtptest.Start(t, addr)
	deadline := time.Now().Add(10 * time.Second)
	for len(relay.Messages()) < 2 && time.Now().Before(deadline) {
		deliverBoth()
		time.Sleep(20 * time.Millisecond)
	}
	for range 5 { // more rounds on both replicas: nothing is sent twice
		deliverBoth()
	}
	got := relay.ByMessageID(t)
	if len(got) != 2 {
		t.Fatalf("%d distinct messages arrived, want 2: %v", len(got), got)
	}
	for id, n := range got {
		if n != 1 {
			t.Errorf("message %s arrived %d times", id, n)
		}
	}
	subjects := ""
	for _, r := range relay.Messages() {
		p, err := r.Parse()
		if err != nil {
			t.Fatal(err)
		}
		if p.Text == "" || p.HTML == "" || len(p.Inline) == 0 || !r.TLS {
			t.Errorf("message %q: text %d bytes, HTML %d bytes, %d images, TLS %v", p.Header.Get("Subject"), len(p.Text), len(p.HTML), len(p.Inline), r.TLS)
		}
		subjects += p.Header.Get("Subject") + "\n"
	}
	if !strings.Contains(subjects, number) || !strings.Contains(subjects, "100004") {
		t.Fatalf("subjects %q do not name booking %s and 100004", subjects, number)
	}
	for _, m := range must(h.Srv.Mail.Outbox.Recent(context.Background(), 10)) {
		if m.State != mail.StateSent {
			t.Fatalf("message %s is %s after delivery", m.Kind, m.State)
		}
	}
}

// TestUndeliverableMailNeedsAttention: a recipient the server refuses for good makes the
// message undeliverable; the page says so, and staff see it in Needs attention and can retry.
func TestUndeliverableMailNeedsAttention(t *testing.T) {
	relay := smtptest.Start(t, "127.0.0.1:0")
	relay.SetRejectRcpt("paid4@example.com", true)
	transport, err := mail.NewSMTP(relay.URL(), mail.WithTLSConfig(smtptest.ClientTLS(t)), mail.WithDialTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	h := bfftest.NewHarness(t, bfftest.HarnessOpts{Sandbox: true, MailTransport: transport})
	bfftest.AddBookingBinder(h)
	bfftest.BindBooking(h, 100004)
	done := bfftest.SwapThrough(t, h, 100004, []string{"3"}, []string{bfftest.Seat(1, 2, 2)})
	if _, err := h.Srv.DeliverMail(context.Background()); err != nil {
		t.Fatal(err)
	}
	msgs := must(h.Srv.Mail.Outbox.Undeliverable(context.Background(), 10))
	if len(msgs) != 1 || !strings.Contains(msgs[0].LastError, "550") {
		t.Fatalf("undeliverable: %+v", msgs)
	}
	if line := done.Find(`[data-testid="mail-line"]`).Text(); !strings.Contains(line, "on its way") {
		t.Fatalf("the swap result says %q before delivery", line)
	}
	_, body := h.Get(bfftest.SwapPath(100004, "/done"))
	if line := h.Doc(body).Find(`[data-testid="mail-line"]`).Text(); !strings.Contains(line, "could not send") {
		t.Fatalf("the swap result says %q about an undeliverable e-mail", line)
	}

	h.SignInStaff("anna", "Anna")
	_, body = h.Get("/staff/attention")
	doc := h.Doc(body)
	row := doc.Find(fmt.Sprintf(`#item-mail-%s`, msgs[0].ID))
	if row.Length() != 1 || !strings.Contains(row.Text(), "E-mail not delivered") || !strings.Contains(row.Text(), "paid4@example.com") {
		t.Fatalf("Needs attention does not list the undeliverable e-mail: %s", doc.Find("main").Text())
	}
	// The address is fixed at the relay; Retry sends it.
	relay.SetRejectRcpt("paid4@example.com", false)
	retry := row.Find(`[data-testid="retry-form"]`).AttrOr("action", "")
	if retry == "" {
		t.Fatalf("no retry form: %s", row.Text())
	}
	h.Post(retry, "/staff/attention", nil)
	if n := len(relay.Messages()); n != 1 {
		t.Fatalf("%d messages at the relay after Retry", n)
	}
	if m := must(h.Srv.Mail.Outbox.Get(context.Background(), msgs[0].ID)); m.State != mail.StateSent {
		t.Fatalf("after Retry the message is %s", m.State)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
