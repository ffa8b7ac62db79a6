package smtptest

import (
	"bytes"
	"errors"
	"net"
	netsmtp "net/smtp"
	"net/textproto"
	"strings"
	"testing"
	"time"
)

// message is a multipart/related message as the mail package builds one: text and HTML
// alternatives, one quoted-printable and one base64, and an inline image.
const message = "From: Cinema <tickets@cinema.example>\r\n" +
	"To: ann@example.org\r\n" +
	"Subject: =?UTF-8?q?Ihre_Buchung_=E2=80=93_Saal_3?=\r\n" +
	"Message-Id: <m1@cinema.example>\r\n" +
	"MIME-Version: 1.0\r\n" +
	"Content-Type: multipart/related; boundary=REL\r\n" +
	"\r\n" +
	"--REL\r\n" +
	"Content-Type: multipart/alternative; boundary=ALT\r\n" +
	"\r\n" +
	"--ALT\r\n" +
	"Content-Type: text/plain; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: quoted-printable\r\n" +
	"\r\n" +
	"Hallo J=C3=B6rg, Saal 3 =E2=80=93 Reihe F\r\n" +
	"--ALT\r\n" +
	"Content-Type: text/html; charset=UTF-8\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"\r\n" +
	"PHA+SGFsbG8gSsO2cmc8L3A+PGltZyBzcmM9ImNpZDpsb2dvIj4=\r\n" +
	"--ALT--\r\n" +
	"--REL\r\n" +
	"Content-Type: image/png\r\n" +
	"Content-Transfer-Encoding: base64\r\n" +
	"Content-Id: <logo>\r\n" +
	"Content-Disposition: inline; filename=logo.png\r\n" +
	"\r\n" +
	"iVBORw0KGgo=\r\n" +
	"--REL--\r\n"

// dial opens a net/smtp client to r, with STARTTLS trusting the test certificate when startTLS
// is set and AUTH PLAIN as user/password when user is not empty.
func dial(t *testing.T, r *Relay, startTLS bool, user, password string) *netsmtp.Client {
	t.Helper()
	c, err := netsmtp.Dial(r.Addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	if startTLS {
		cfg := ClientTLS(t)
		cfg.ServerName = "127.0.0.1"
		if err := c.StartTLS(cfg); err != nil {
			t.Fatalf("STARTTLS: %v", err)
		}
	}
	if user != "" {
		if err := c.Auth(netsmtp.PlainAuth("", user, password, "127.0.0.1")); err != nil {
			t.Fatalf("AUTH: %v", err)
		}
	}
	return c
}

// send runs one transaction and returns the first error, from whichever command.
func send(c *netsmtp.Client, from, to, data string) error {
	if err := c.Mail(from); err != nil {
		return err
	}
	if err := c.Rcpt(to); err != nil {
		return err
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write([]byte(data)); err != nil {
		return err
	}
	return w.Close()
}

func code(err error) int {
	var pe *textproto.Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return 0
}

func TestRelayReceivesAndParses(t *testing.T) {
	r := Start(t, "127.0.0.1:0")
	if got, want := r.URL(), "smtp://bff:s3cret-Pa55@"+r.Addr; got != want {
		t.Errorf("URL = %q, want %q", got, want)
	}
	c := dial(t, r, true, User, Password)
	if err := send(c, "tickets@cinema.example", "ann@example.org", message); err != nil {
		t.Fatalf("send: %v", err)
	}
	if err := c.Quit(); err != nil {
		t.Fatal(err)
	}

	got := r.Messages()
	if len(got) != 1 {
		t.Fatalf("relay has %d messages, want 1", len(got))
	}
	m := got[0]
	if m.From != "tickets@cinema.example" || len(m.To) != 1 || m.To[0] != "ann@example.org" || !m.TLS || m.AuthUser != User {
		t.Errorf("received %+v", m)
	}
	if ids := r.ByMessageID(t); len(ids) != 1 || ids["<m1@cinema.example>"] != 1 {
		t.Errorf("ByMessageID = %v", ids)
	}

	p, err := m.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Header.Get("Subject"); got != "=?UTF-8?q?Ihre_Buchung_=E2=80=93_Saal_3?=" {
		t.Errorf("Subject = %q, want it as sent", got)
	}
	if p.Text != "Hallo Jörg, Saal 3 – Reihe F" {
		t.Errorf("Text = %q", p.Text)
	}
	if p.HTML != `<p>Hallo Jörg</p><img src="cid:logo">` {
		t.Errorf("HTML = %q", p.HTML)
	}
	if len(p.Inline) != 1 || !bytes.Equal(p.Inline["logo"], []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("Inline = %q", p.Inline)
	}
	var paths []string
	for _, part := range p.Parts {
		paths = append(paths, part.Path)
	}
	if got, want := strings.Join(paths, " "), "multipart/related>multipart/alternative>text/plain "+
		"multipart/related>multipart/alternative>text/html multipart/related>image/png"; got != want {
		t.Errorf("parts = %s, want %s", got, want)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, raw, text string
		wantErr         string // part of the error; "" when Parse succeeds
	}{
		{"single part, no Content-Type", "Subject: hi\r\n\r\nplain body\r\n", "plain body\r\n", ""},
		{"single part, quoted-printable", "Content-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nJ=C3=B6rg=\r\n", "Jörg", ""},
		{"attachment is not the text", "Content-Type: multipart/mixed; boundary=B\r\n\r\n--B\r\nContent-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\nfile\r\n--B\r\nContent-Type: text/plain\r\n\r\nbody\r\n--B--\r\n", "body", ""},
		{"bad content type", "Content-Type: text/\r\n\r\nx", "", "content type"},
		{"multipart without boundary", "Content-Type: multipart/mixed\r\n\r\nx", "", "no boundary"},
		{"unknown transfer encoding", "Content-Type: text/plain\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\nx", "", "x-uuencode"},
		{"one Content-ID twice", "Content-Type: multipart/related; boundary=B\r\n\r\n--B\r\nContent-Id: <a>\r\n\r\n1\r\n--B\r\nContent-Id: <a>\r\n\r\n2\r\n--B--\r\n", "", "used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Received{Data: []byte(tc.raw)}.Parse()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Parse = %+v, %v; want an error about %q", p, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Text != tc.text {
				t.Errorf("Text = %q, want %q", p.Text, tc.text)
			}
		})
	}
}

func TestRelayFailures(t *testing.T) {
	r := Start(t, "127.0.0.1:0")

	if err := send(dial(t, r, true, "", ""), "a@example.org", "b@example.org", message); code(err) != 530 {
		t.Errorf("without AUTH: %v, want 530", err)
	}
	c, err := netsmtp.Dial(r.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Hello("client.test"); err != nil {
		t.Fatal(err)
	}
	cfg := ClientTLS(t)
	cfg.ServerName = "127.0.0.1"
	if err := c.StartTLS(cfg); err != nil {
		t.Fatal(err)
	}
	if err := c.Auth(netsmtp.PlainAuth("", User, "wrong", "127.0.0.1")); code(err) != 535 {
		t.Errorf("wrong password: %v, want 535", err)
	}

	r.SetTempFail(true)
	if err := send(dial(t, r, true, User, Password), "a@example.org", "b@example.org", message); code(err) != 451 {
		t.Errorf("temp fail: %v, want 451", err)
	}
	r.SetTempFail(false)
	r.SetRejectRcpt("b@example.org", true)
	if err := send(dial(t, r, true, User, Password), "a@example.org", "b@example.org", message); code(err) != 550 {
		t.Errorf("rejected recipient: %v, want 550", err)
	}
	r.SetRejectRcpt("b@example.org", false)
	r.SetDelay(50 * time.Millisecond)
	start := time.Now()
	if err := send(dial(t, r, true, User, Password), "a@example.org", "b@example.org", message); err != nil {
		t.Errorf("after the switches are off: %v", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("DATA took %v, want the delay of 50ms", d)
	}
	if n := len(r.Messages()); n != 1 {
		t.Errorf("relay has %d messages, want only the last", n)
	}
}

func TestWithoutTLS(t *testing.T) {
	r := Start(t, "127.0.0.1:0", WithoutTLS())
	c := dial(t, r, false, "", "")
	if ok, _ := c.Extension("STARTTLS"); ok {
		t.Error("STARTTLS offered")
	}
	if err := send(c, "a@example.org", "b@example.org", message); err != nil {
		t.Fatal(err)
	}
	if m := r.Messages(); len(m) != 1 || m[0].TLS || m[0].AuthUser != "" {
		t.Errorf("received %+v, want one message without TLS or AUTH", m)
	}
}

func TestStop(t *testing.T) {
	Start(t, "127.0.0.1:0").Stop() // at once, before Serve may have started; Cleanup stops again

	r := Start(t, "127.0.0.1:0")
	c := dial(t, r, true, User, Password) // an open session is closed too
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Stop()
		r.Stop()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hangs")
	}
	if err := c.Noop(); err == nil {
		t.Error("the session survived Stop")
	}
	if conn, err := net.DialTimeout("tcp", r.Addr, time.Second); err == nil {
		conn.Close()
		t.Error("the address still accepts connections after Stop")
	}
}
