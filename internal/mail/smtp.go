package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Transport hands a built message on: to an SMTP relay, or to files for the sandbox.
type Transport interface {
	// Deliver sends msg, built for m. Errors wrapping ErrPermanent will not get better by
	// retrying; every other error is temporary.
	Deliver(ctx context.Context, m Message, msg *gomail.Msg) error
	// Describe says where mail goes, for the start banner, e.g.
	// "SMTP smtp.example.com:587 (STARTTLS)" or "files in data/mail". It never shows secrets.
	Describe() string
}

// ErrBadSMTPURL is returned by NewSMTP for a URL it cannot use. The message never contains
// the password.
var ErrBadSMTPURL = errors.New("mail: bad SMTP URL")

// tlsMode is how an SMTP connection is encrypted.
type tlsMode int

const (
	startTLSMandatory     tlsMode = iota // smtp://: STARTTLS or no delivery
	startTLSOpportunistic                // smtp://…?starttls=opportunistic: plain text if the relay has no TLS
	implicitTLS                          // smtps://: TLS from the first byte
)

func (m tlsMode) String() string {
	switch m {
	case startTLSOpportunistic:
		return "STARTTLS if offered"
	case implicitTLS:
		return "implicit TLS"
	default:
		return "STARTTLS"
	}
}

// SMTP delivers through an SMTP relay, one connection per message. It is safe for concurrent
// use.
type SMTP struct {
	host      string
	port      int
	mode      tlsMode
	user      string
	password  string
	tlsConfig *tls.Config
	timeout   time.Duration
}

// SMTPOption changes an SMTP transport made by NewSMTP.
type SMTPOption func(*SMTP)

// WithTLSConfig sets the TLS configuration (tests pass one trusting their own certificate).
// Its ServerName defaults to the URL's host.
func WithTLSConfig(c *tls.Config) SMTPOption {
	return func(s *SMTP) { s.tlsConfig = c.Clone() }
}

// WithDialTimeout bounds connecting and each SMTP exchange (default 15s).
func WithDialTimeout(d time.Duration) SMTPOption {
	return func(s *SMTP) {
		if d > 0 {
			s.timeout = d
		}
	}
}

// NewSMTP returns the SMTP transport for rawURL:
//
//	smtp://user:pass@host:587   STARTTLS required (default port 587); SMTP AUTH when a user is given
//	smtps://user:pass@host      implicit TLS (default port 465)
//	smtp://127.0.0.1:25?starttls=opportunistic   a relay without TLS (loopback, a sidecar)
//
// The AUTH mechanism is the strongest the server offers. Anything else in the URL is refused
// with ErrBadSMTPURL.
func NewSMTP(rawURL string, opts ...SMTPOption) (*SMTP, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		// url.Error repeats the URL, password included: say less.
		return nil, fmt.Errorf("%w: cannot parse it", ErrBadSMTPURL)
	}
	s := &SMTP{timeout: 15 * time.Second}
	for _, read := range []func(*url.URL) error{s.readScheme, s.readAddress, s.readUser, s.readQuery} {
		if err := read(u); err != nil {
			return nil, err
		}
	}
	for _, opt := range opts {
		opt(s)
	}
	if s.tlsConfig == nil {
		s.tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if s.tlsConfig.ServerName == "" {
		s.tlsConfig.ServerName = s.host
	}
	return s, nil
}

// readScheme sets the encryption and the default port of the URL's scheme.
func (s *SMTP) readScheme(u *url.URL) error {
	switch u.Scheme {
	case "smtp":
		s.mode, s.port = startTLSMandatory, 587
	case "smtps":
		s.mode, s.port = implicitTLS, 465
	default:
		return fmt.Errorf("%w: scheme %q (want smtp or smtps)", ErrBadSMTPURL, u.Scheme)
	}
	return nil
}

// readAddress reads the host and port; the URL has nothing else but credentials and a query.
func (s *SMTP) readAddress(u *url.URL) error {
	if u.Opaque != "" || (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return fmt.Errorf("%w: want scheme://[user:pass@]host[:port], without a path", ErrBadSMTPURL)
	}
	s.host = u.Hostname()
	if s.host == "" {
		return fmt.Errorf("%w: no host", ErrBadSMTPURL)
	}
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return fmt.Errorf("%w: port %q", ErrBadSMTPURL, p)
		}
		s.port = port
	}
	return nil
}

// readUser reads the credentials of SMTP AUTH, if any: a password needs a user.
func (s *SMTP) readUser(u *url.URL) error {
	if u.User == nil {
		return nil
	}
	s.user = u.User.Username()
	s.password, _ = u.User.Password()
	if s.user == "" {
		return fmt.Errorf("%w: a password without a user", ErrBadSMTPURL)
	}
	return nil
}

// readQuery reads the one parameter there is, starttls=opportunistic (not for smtps).
func (s *SMTP) readQuery(u *url.URL) error {
	for key, values := range u.Query() {
		switch {
		case key == "starttls" && len(values) == 1 && values[0] == "opportunistic":
			if s.mode == implicitTLS {
				return fmt.Errorf("%w: starttls does not apply to smtps", ErrBadSMTPURL)
			}
			s.mode = startTLSOpportunistic
		case key == "starttls":
			return fmt.Errorf("%w: starttls=%v (the only value is opportunistic)", ErrBadSMTPURL, values)
		default:
			return fmt.Errorf("%w: unknown parameter %q (the only one is starttls)", ErrBadSMTPURL, key)
		}
	}
	return nil
}

// Describe says host, port and encryption, never the credentials.
func (s *SMTP) Describe() string {
	auth := ""
	if s.user != "" {
		auth = ", AUTH"
	}
	return fmt.Sprintf("SMTP %s (%s%s)", net.JoinHostPort(s.host, strconv.Itoa(s.port)), s.mode, auth)
}

// Deliver sends msg over a new connection. A 5xx answer to the recipient or the message wraps
// ErrPermanent; 4xx answers, failed connections and failed AUTH are temporary (a relay or
// its credentials can be fixed; the message is fine).
func (s *SMTP) Deliver(ctx context.Context, m Message, msg *gomail.Msg) error {
	opts := []gomail.Option{
		gomail.WithPort(s.port),
		gomail.WithTimeout(s.timeout),
		gomail.WithTLSConfig(s.tlsConfig),
	}
	switch s.mode {
	case implicitTLS:
		opts = append(opts, gomail.WithSSL())
	case startTLSOpportunistic:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	default:
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	}
	if s.user != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.user), gomail.WithPassword(s.password))
	}
	client, err := gomail.NewClient(s.host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client for %s: %w", m.ID, err)
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		if permanentSMTP(err) {
			return fmt.Errorf("%w: %s: %w", ErrPermanent, s.Describe(), err)
		}
		return fmt.Errorf("%s: %w", s.Describe(), err)
	}
	return nil
}

// permanentSMTP reports whether err is a 5xx answer to RCPT TO or to the message (DATA and
// its end), or a message go-mail could not address at all.
func permanentSMTP(err error) bool {
	var sendErr *gomail.SendError
	if !errors.As(err, &sendErr) {
		return false
	}
	switch sendErr.Reason {
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
		return true
	case gomail.ErrSMTPRcptTo, gomail.ErrSMTPData, gomail.ErrSMTPDataClose:
		code := sendErr.ErrorCode()
		return code >= 500 && code < 600
	}
	return false
}
