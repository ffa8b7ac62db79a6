package mail

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"strings"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/mail/smtptest"
)

func testMessage(id string) Message {
	return Message{
		ID: id, Key: "k-" + id, Kind: "booking_confirmed", To: "ann@example.org", Lang: "de",
		MessageID: "<" + id + "@cinema.example>", Payload: []byte(`{"subject":"Ihre Buchung – Saal 3","name":"Ann"}`),
		CreatedAt: time.Date(2026, 3, 14, 18, 30, 5, 0, time.UTC),
	}
}

// rawMessage renders what Build makes, as a relay or a file would get it.
func rawMessage(t *testing.T, m Message, r Rendered) []byte {
	t.Helper()
	msg, err := Build(testFrom, m, r)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	var buf bytes.Buffer
	if _, err := msg.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkComposed asserts the structure Build promises, on a raw message however it travelled.
func checkComposed(t *testing.T, raw []byte, m Message) {
	t.Helper()
	p, err := smtptest.Received{Data: raw}.Parse()
	if err != nil {
		t.Fatalf("parse message: %v", err)
	}
	h := p.Header
	if got := decodeHeader(t, h.Get("Subject")); got != "Ihre Buchung – Saal 3" {
		t.Errorf("Subject = %q", got)
	}
	if got := h.Get("Message-Id"); got != m.MessageID {
		t.Errorf("Message-ID = %q, want %q", got, m.MessageID)
	}
	if from, err := h.AddressList("From"); err != nil || len(from) != 1 || from[0].Address != "tickets@cinema.example" || from[0].Name != "Cinema" {
		t.Errorf("From = %q (%v)", h.Get("From"), err)
	}
	if to, err := h.AddressList("To"); err != nil || len(to) != 1 || to[0].Address != m.To {
		t.Errorf("To = %q (%v), want %s", h.Get("To"), err, m.To)
	}
	if got := h.Get("Content-Language"); got != m.Lang {
		t.Errorf("Content-Language = %q, want the message's language %q", got, m.Lang)
	}
	if d, err := h.Date(); err != nil || !d.Equal(m.CreatedAt) {
		t.Errorf("Date = %q (%v), want %v", h.Get("Date"), err, m.CreatedAt)
	}
	if !strings.Contains(p.Text, "Hello Ann,") {
		t.Errorf("text part = %q", p.Text)
	}
	if !strings.Contains(p.HTML, `<img src="cid:logo"`) {
		t.Errorf("html part = %q", p.HTML)
	}
	if len(p.Inline) != 1 || !bytes.Equal(p.Inline["logo"], logoPNG()) {
		t.Errorf("inline parts by Content-ID: %d, logo %d bytes; want only the logo (%d bytes)", len(p.Inline), len(p.Inline["logo"]), len(logoPNG()))
	}
	// The nesting matters to mail clients: the alternatives together, the image beside them.
	want := map[string]bool{
		"multipart/related>multipart/alternative>text/plain": false,
		"multipart/related>multipart/alternative>text/html":  false,
		"multipart/related>image/png":                        false,
	}
	for _, part := range p.Parts {
		if _, ok := want[part.Path]; !ok {
			t.Errorf("unexpected part %s", part.Path)
			continue
		}
		want[part.Path] = true
		if part.Type == "image/png" && !strings.HasPrefix(part.Header.Get("Content-Disposition"), "inline") {
			t.Errorf("image Content-Disposition = %q, want inline", part.Header.Get("Content-Disposition"))
		}
	}
	for path, seen := range want {
		if !seen {
			t.Errorf("no %s part", path)
		}
	}
}

func TestBuild(t *testing.T) {
	m := testMessage("b1")
	r, err := composeTest(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	checkComposed(t, rawMessage(t, m, r), m)
}

func TestBuildRefuses(t *testing.T) {
	good, _ := composeTest(context.Background(), testMessage("b2"))
	for _, tc := range []struct {
		name      string
		from      string
		change    func(m *Message, r *Rendered)
		permanent bool
	}{
		{"bad from", "not an address", func(*Message, *Rendered) {}, false},
		{"bad recipient", testFrom, func(m *Message, _ *Rendered) { m.To = "nobody" }, true},
		{"no subject", testFrom, func(_ *Message, r *Rendered) { r.Subject = " " }, true},
		{"no text part", testFrom, func(_ *Message, r *Rendered) { r.Text = "" }, true},
		{"no html part", testFrom, func(_ *Message, r *Rendered) { r.HTML = "" }, true},
		{"inline without CID", testFrom, func(_ *Message, r *Rendered) { r.Inline = []Inline{{ContentType: "image/png", Data: []byte{1}}} }, true},
		{"inline CID with brackets", testFrom, func(_ *Message, r *Rendered) {
			r.Inline = []Inline{{CID: "<logo>", ContentType: "image/png", Data: []byte{1}}}
		}, true},
		{"two inline parts with one CID", testFrom, func(_ *Message, r *Rendered) {
			r.Inline = append(r.Inline, r.Inline[0])
		}, true},
		{"no Message-ID", testFrom, func(m *Message, _ *Rendered) { m.MessageID = "" }, true},
		{"attachment without a name", testFrom, func(_ *Message, r *Rendered) {
			r.Attachments = []Attachment{{ContentType: "text/calendar", Data: []byte("x")}}
		}, true},
		{"attachment name with a slash", testFrom, func(_ *Message, r *Rendered) {
			r.Attachments = []Attachment{{Filename: "../booking.ics", ContentType: "text/calendar", Data: []byte("x")}}
		}, true},
		{"attachment without a type", testFrom, func(_ *Message, r *Rendered) {
			r.Attachments = []Attachment{{Filename: "booking.ics", Data: []byte("x")}}
		}, true},
		{"empty attachment", testFrom, func(_ *Message, r *Rendered) {
			r.Attachments = []Attachment{{Filename: "booking.ics", ContentType: "text/calendar"}}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, r := testMessage("b2"), good
			r.Inline = append([]Inline(nil), good.Inline...)
			tc.change(&m, &r)
			_, err := Build(tc.from, m, r)
			if err == nil {
				t.Fatal("Build accepted it")
			}
			if got := errors.Is(err, ErrPermanent); got != tc.permanent {
				t.Fatalf("errors.Is(%v, ErrPermanent) = %v, want %v", err, got, tc.permanent)
			}
		})
	}
}

// TestBuildAttachment: an attachment is a part of its own beside the body and its images, with
// Content-Disposition: attachment, its file name and its content type with parameters.
func TestBuildAttachment(t *testing.T) {
	m := testMessage("b3")
	r, err := composeTest(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	ics := []byte("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nSUMMARY:Grüße\\, Saal 3\r\nEND:VCALENDAR\r\n")
	r.Attachments = []Attachment{{Filename: "booking-100001.ics", ContentType: "text/calendar; charset=utf-8; method=PUBLISH", Data: ics}}
	raw := rawMessage(t, m, r)
	p, err := smtptest.Received{Data: raw}.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "Hello Ann,") || !strings.Contains(p.HTML, `<img src="cid:logo"`) || len(p.Inline) != 1 {
		t.Errorf("the body or its image is lost beside the attachment: text %q, %d inline", p.Text, len(p.Inline))
	}
	var found int
	for _, part := range p.Parts {
		if part.Type != "text/calendar" {
			continue
		}
		found++
		if !strings.HasPrefix(part.Path, "multipart/mixed>") {
			t.Errorf("attachment path = %s, want under multipart/mixed", part.Path)
		}
		disp, params, err := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		if err != nil || disp != "attachment" || params["filename"] != "booking-100001.ics" {
			t.Errorf("Content-Disposition = %q (%v)", part.Header.Get("Content-Disposition"), err)
		}
		_, ct, err := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if err != nil || ct["charset"] != "utf-8" || ct["method"] != "PUBLISH" {
			t.Errorf("Content-Type = %q (%v)", part.Header.Get("Content-Type"), err)
		}
		if !bytes.Equal(part.Body, ics) {
			t.Errorf("attachment body = %q, want %q", part.Body, ics)
		}
	}
	if found != 1 {
		t.Errorf("%d text/calendar parts, want 1", found)
	}
}
