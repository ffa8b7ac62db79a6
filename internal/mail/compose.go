package mail

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"strings"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Rendered is a composed message, ready to send.
type Rendered struct {
	To      string // recipient; empty means the outbox message's To
	Subject string
	Lang    string // the language it is written in ("en", "de"): its Content-Language; "" for none
	Text    string // the text/plain part (required)
	HTML    string // the text/html part (required); may show Inline parts as <img src="cid:CID">
	Inline  []Inline
	// Attachments are files the reader saves or opens (Content-Disposition: attachment), e.g.
	// the booking's calendar event.
	Attachments []Attachment
}

// Attachment is a file sent with the message, not shown in its body.
type Attachment struct {
	Filename    string // required, e.g. "booking-100001.ics"
	ContentType string // with its parameters, e.g. "text/calendar; charset=utf-8; method=PUBLISH"
	Data        []byte
}

// Inline is a part the HTML refers to by Content-ID (a logo, a ticket's QR code).
type Inline struct {
	CID         string // without angle brackets, as written after "cid:" in the HTML
	Filename    string // empty: the CID
	ContentType string // e.g. "image/png"
	Data        []byte
}

// Composer turns an outbox message into the mail to send. Errors wrapping ErrPermanent make
// the message undeliverable at once; other errors are retried with backoff (e.g. the
// ticketing system was down while reading the booking).
type Composer func(ctx context.Context, m Message) (Rendered, error)

// ErrPermanent marks a failure that retrying cannot fix: a Composer's unknown kind or broken
// payload, a transport's permanent rejection (SMTP 5xx for the recipient or the message).
var ErrPermanent = errors.New("permanent mail failure")

// Build makes the go-mail message for m as rendered by r: From, To, Subject, Date (when the
// message was enqueued, like its Message-ID the same on every retry), the stored Message-ID,
// a multipart/alternative text/plain and text/html body and, when there are inline parts,
// those in a multipart/related around it, each with its Content-ID, and attachments in a
// multipart/mixed around all of it, each with Content-Disposition: attachment. Errors are about the
// message itself (a bad address, a missing part) and wrap ErrPermanent, except a bad from,
// which is the sender's configuration.
func Build(from string, m Message, r Rendered) (*gomail.Msg, error) {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("mail build: from address: %w", err)
	}
	to := r.To
	if to == "" {
		to = m.To
	}
	if err := msg.To(to); err != nil {
		return nil, fmt.Errorf("%w: mail build %s: recipient: %w", ErrPermanent, m.ID, err)
	}
	if err := checkRendered(r); err != nil {
		return nil, fmt.Errorf("%w: mail build %s: %w", ErrPermanent, m.ID, err)
	}
	if !validMessageID(m.MessageID) {
		return nil, fmt.Errorf("%w: mail build %s: Message-ID %q is not <left@right>", ErrPermanent, m.ID, m.MessageID)
	}
	msg.Subject(r.Subject)
	date := m.CreatedAt
	if date.IsZero() {
		date = time.Now()
	}
	msg.SetDateWithValue(date)
	msg.SetMessageIDWithValue(strings.TrimSuffix(strings.TrimPrefix(m.MessageID, "<"), ">"))
	// A transactional mail: auto-responders should not answer it (RFC 3834).
	msg.SetGenHeader("Auto-Submitted", "auto-generated")
	if r.Lang != "" {
		msg.SetGenHeader("Content-Language", r.Lang)
	}
	msg.SetBodyString(gomail.TypeTextPlain, r.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, r.HTML)
	for _, in := range r.Inline {
		name := in.Filename
		if name == "" {
			name = in.CID
		}
		msg.EmbedReadSeeker(name, bytes.NewReader(in.Data),
			gomail.WithFileContentID("<"+in.CID+">"),
			gomail.WithFileContentType(gomail.ContentType(in.ContentType)))
	}
	for _, a := range r.Attachments {
		msg.AttachReadSeeker(a.Filename, bytes.NewReader(a.Data), gomail.WithFileContentType(gomail.ContentType(a.ContentType)))
	}
	return msg, nil
}

func checkRendered(r Rendered) error {
	switch {
	case strings.TrimSpace(r.Subject) == "":
		return errors.New("no subject")
	case strings.TrimSpace(r.Text) == "":
		return errors.New("no text part")
	case strings.TrimSpace(r.HTML) == "":
		return errors.New("no HTML part")
	}
	seen := map[string]bool{}
	for _, in := range r.Inline {
		switch {
		case in.CID == "" || strings.ContainsAny(in.CID, "<> \t\r\n"):
			return fmt.Errorf("inline part with bad Content-ID %q", in.CID)
		case seen[in.CID]:
			return fmt.Errorf("two inline parts with Content-ID %q", in.CID)
		case in.ContentType == "":
			return fmt.Errorf("inline part %q has no content type", in.CID)
		case len(in.Data) == 0:
			return fmt.Errorf("inline part %q is empty", in.CID)
		}
		seen[in.CID] = true
	}
	for _, a := range r.Attachments {
		switch {
		case a.Filename == "" || strings.ContainsAny(a.Filename, "\"/\r\n"):
			return fmt.Errorf("attachment with bad file name %q", a.Filename)
		case a.ContentType == "":
			return fmt.Errorf("attachment %q has no content type", a.Filename)
		case len(a.Data) == 0:
			return fmt.Errorf("attachment %q is empty", a.Filename)
		}
	}
	return nil
}

// checkFrom reports whether from is an address Build accepts.
func checkFrom(from string) error {
	if _, err := netmail.ParseAddress(from); err != nil {
		return fmt.Errorf("mail: from address %q: %w", from, err)
	}
	return nil
}
