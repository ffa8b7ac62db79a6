package smtptest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"net/textproto"
	"strings"
)

// Parsed is a received message taken apart. Bodies are decoded from base64 or
// quoted-printable; text is taken as UTF-8, which is what the mail package sends.
type Parsed struct {
	Header netmail.Header    // the message's own header, encoded words not decoded
	Text   string            // the first text/plain part that is not an attachment or inline part
	HTML   string            // the first text/html part that is not an attachment or inline part
	Inline map[string][]byte // the parts with a Content-ID, by that ID without <>

	// Parts are all the leaf parts in order, for tests that check the MIME structure too.
	Parts []Part
}

// Part is one non-multipart part of a message.
type Part struct {
	Path   string // the media types from the top down, e.g. "multipart/related>multipart/alternative>text/plain"
	Type   string // the part's own media type, lower case
	Header textproto.MIMEHeader
	Body   []byte // decoded
}

// Parse reads one received message: headers, and its parts walked recursively (text/plain,
// text/html, parts with Content-ID), decoding base64/quoted-printable.
func (m Received) Parse() (Parsed, error) {
	return parse(m.Data)
}

func parse(raw []byte) (Parsed, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Parsed{}, fmt.Errorf("smtptest: read message: %w", err)
	}
	p := Parsed{Header: msg.Header, Inline: map[string][]byte{}}
	if err := p.walk(textproto.MIMEHeader(msg.Header), msg.Body, ""); err != nil {
		return Parsed{}, err
	}
	return p, nil
}

// walk adds the leaves under one entity to p, depth first.
func (p *Parsed) walk(h textproto.MIMEHeader, body io.Reader, path string) error {
	ct := h.Get("Content-Type")
	if ct == "" {
		ct = "text/plain; charset=us-ascii" // RFC 2045's default
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return fmt.Errorf("smtptest: %s: content type %q: %w", orTop(path), ct, err)
	}
	if path != "" {
		path += ">"
	}
	path += mt
	if strings.HasPrefix(mt, "multipart/") {
		if params["boundary"] == "" {
			return fmt.Errorf("smtptest: %s: no boundary", path)
		}
		mr := multipart.NewReader(body, params["boundary"])
		for {
			// The raw part keeps its Content-Transfer-Encoding; leaf decodes it like the top level.
			part, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return fmt.Errorf("smtptest: %s: %w", path, err)
			}
			if err := p.walk(part.Header, part, path); err != nil {
				return err
			}
		}
	}
	return p.leaf(h, body, path, mt)
}

// leaf decodes one non-multipart part and files it as text, HTML or inline.
func (p *Parsed) leaf(h textproto.MIMEHeader, body io.Reader, path, mt string) error {
	switch cte := strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))); cte {
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body)
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "", "7bit", "8bit", "binary":
	default:
		return fmt.Errorf("smtptest: %s: unknown Content-Transfer-Encoding %q", path, cte)
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("smtptest: %s: read body: %w", path, err)
	}
	p.Parts = append(p.Parts, Part{Path: path, Type: mt, Header: h, Body: data})

	if id := h.Get("Content-Id"); id != "" {
		id = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(id), "<"), ">")
		if _, dup := p.Inline[id]; dup {
			return fmt.Errorf("smtptest: %s: Content-ID <%s> used twice", path, id)
		}
		p.Inline[id] = data
		return nil
	}
	if disp, _, _ := mime.ParseMediaType(h.Get("Content-Disposition")); disp == "attachment" {
		return nil
	}
	switch {
	case mt == "text/plain" && p.Text == "":
		p.Text = string(data)
	case mt == "text/html" && p.HTML == "":
		p.HTML = string(data)
	}
	return nil
}

func orTop(path string) string {
	if path == "" {
		return "message"
	}
	return path
}
