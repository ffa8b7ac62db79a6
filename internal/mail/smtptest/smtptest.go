// Package smtptest is a real SMTP server for tests, built on github.com/emersion/go-smtp.
//
// A Relay listens on loopback, offers STARTTLS with a self-signed test certificate, requires
// AUTH PLAIN with User and Password, keeps what it accepts, and can be switched to fail the
// way real relays do. Only tests import this package; it does not import internal/mail, so
// that package's own tests can use it.
package smtptest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"math/big"
	"net"
	netmail "net/mail"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The credentials a Relay accepts for AUTH PLAIN.
const (
	User     = "bff"
	Password = "s3cret-Pa55"
)

// Received is one message a Relay accepted: the envelope, the raw message, and how it came.
type Received struct {
	From     string   // MAIL FROM
	To       []string // RCPT TO, in order
	Data     []byte   // the message as sent after DATA
	TLS      bool     // the session was under STARTTLS
	AuthUser string   // who authenticated; "" if nobody did
}

// Relay is a running SMTP server on loopback. Its switches may be flipped while it runs.
type Relay struct {
	Addr string // host:port it listens on

	mu         sync.Mutex
	received   []Received
	tempFail   bool            // MAIL FROM answers 451
	rejectRcpt map[string]bool // RCPT TO answers 550 for these
	delay      time.Duration   // DATA takes this long
	noTLS      bool

	srv      *smtp.Server
	ln       net.Listener
	done     chan struct{} // closed when Serve has returned
	stopOnce sync.Once
}

// Option changes how Start sets up a Relay.
type Option func(*Relay)

// WithoutTLS makes a Relay that offers no STARTTLS and therefore no AUTH; it then accepts mail
// without authentication, like an internal relay on a trusted network.
func WithoutTLS() Option { return func(r *Relay) { r.noTLS = true } }

// Start serves on addr ("127.0.0.1:0" for any port) until the test ends or Stop: STARTTLS with
// a self-signed test certificate, AUTH PLAIN required (User/Password).
func Start(t testing.TB, addr string, opts ...Option) *Relay {
	t.Helper()
	r := &Relay{rejectRcpt: map[string]bool{}, done: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("smtptest: listen %s: %v", addr, err)
	}
	r.Addr, r.ln = ln.Addr().String(), ln
	srv := smtp.NewServer(r)
	srv.Domain = "relay.test"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.ErrorLog = discardLogger{}
	if !r.noTLS {
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{certs(t).server}, MinVersion: tls.VersionTLS12}
	}
	r.srv = srv
	go func() {
		defer close(r.done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(r.Stop)
	return r
}

// Stop closes the listener and every connection; the address then refuses connections.
// It may be called more than once (a test's own Stop, then the cleanup's).
func (r *Relay) Stop() {
	r.stopOnce.Do(func() {
		_ = r.srv.Close()
		// Close the listener too: if Serve has not registered it yet, srv.Close misses it and
		// Serve would block in Accept forever.
		_ = r.ln.Close()
	})
	<-r.done
}

// SetTempFail makes MAIL FROM answer 451 (try again later) while on.
func (r *Relay) SetTempFail(on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tempFail = on
}

// SetRejectRcpt makes RCPT TO answer 550 (no such mailbox) for addr while on.
func (r *Relay) SetRejectRcpt(addr string, on bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if on {
		r.rejectRcpt[addr] = true
	} else {
		delete(r.rejectRcpt, addr)
	}
}

// SetDelay makes DATA take d before it answers, so deliveries overlap.
func (r *Relay) SetDelay(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.delay = d
}

// Messages returns a copy of what the relay accepted so far, in order.
func (r *Relay) Messages() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.received...)
}

// ByMessageID counts the accepted messages per Message-Id header; it fails the test on a
// message it cannot read.
func (r *Relay) ByMessageID(t testing.TB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, m := range r.Messages() {
		msg, err := netmail.ReadMessage(bytes.NewReader(m.Data))
		if err != nil {
			t.Fatalf("smtptest: the relay got an unreadable message: %v", err)
		}
		out[msg.Header.Get("Message-Id")]++
	}
	return out
}

// URL is the relay's address with the test credentials: "smtp://User:Password@Addr".
func (r *Relay) URL() string { return "smtp://" + User + ":" + Password + "@" + r.Addr }

// ClientTLS is a client TLS config that trusts the test certificate (give it to
// mail.WithTLSConfig). Its ServerName is empty; set it when the client does not.
func ClientTLS(t testing.TB) *tls.Config {
	t.Helper()
	return &tls.Config{RootCAs: certs(t).pool, MinVersion: tls.VersionTLS12}
}

// NewSession implements smtp.Backend.
func (r *Relay) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{relay: r, conn: c}, nil
}

// session is one SMTP connection to a Relay.
type session struct {
	relay *Relay
	conn  *smtp.Conn
	user  string
	from  string
	to    []string
}

var _ smtp.AuthSession = (*session)(nil)

func (s *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, username, password string) error {
		if username != User || password != Password {
			return smtp.ErrAuthFailed
		}
		s.user = username
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.relay.mu.Lock()
	tempFail := s.relay.tempFail
	s.relay.mu.Unlock()
	switch {
	case tempFail:
		return &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try again later"}
	case s.user == "" && !s.relay.noTLS:
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "authentication required"}
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.relay.mu.Lock()
	reject := s.relay.rejectRcpt[to]
	s.relay.mu.Unlock()
	if reject {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("smtptest: read DATA: %w", err)
	}
	s.relay.mu.Lock()
	delay := s.relay.delay
	s.relay.mu.Unlock()
	time.Sleep(delay)
	_, isTLS := s.conn.TLSConnectionState()
	s.relay.mu.Lock()
	defer s.relay.mu.Unlock()
	s.relay.received = append(s.relay.received, Received{
		From: s.from, To: append([]string(nil), s.to...), Data: data, TLS: isTLS, AuthUser: s.user,
	})
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

// discardLogger silences go-smtp's server log; the tests see failures through the client.
type discardLogger struct{}

func (discardLogger) Printf(string, ...any) {}
func (discardLogger) Println(...any)        {}

// testCert is a self-signed certificate for 127.0.0.1 and localhost, and the pool that trusts it.
type testCert struct {
	server tls.Certificate
	pool   *x509.CertPool
}

// makeTestCert makes the certificate once per test binary; key generation is the slow part.
var makeTestCert = sync.OnceValues(func() (testCert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return testCert{}, fmt.Errorf("generate key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "smtptest relay"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return testCert{}, fmt.Errorf("create certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return testCert{}, fmt.Errorf("parse certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return testCert{server: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool: pool}, nil
})

func certs(t testing.TB) testCert {
	t.Helper()
	c, err := makeTestCert()
	if err != nil {
		t.Fatalf("smtptest: test certificate: %v", err)
	}
	return c
}
