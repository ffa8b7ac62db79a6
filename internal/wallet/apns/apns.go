// Package apns sends the empty pushes that tell Apple Wallet a pass has changed, over HTTP/2
// to Apple's Push Notification service, with token (ES256 JWT) or certificate authentication.
package apns

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// DefaultEndpoint is Apple's production APNs server; Wallet passes always use production.
const DefaultEndpoint = "https://api.push.apple.com"

// ErrUnregistered says APNs answered 410: the device token is no longer valid for the topic,
// so the device's registrations should be removed.
var ErrUnregistered = errors.New("apns: device token is no longer active")

// ErrBadDeviceToken is returned, without a request, for a token that is not hexadecimal:
// it goes into the request path.
var ErrBadDeviceToken = errors.New("apns: malformed device token")

// Error is APNs refusing a push for good (400, 403, 410 and other 4xx): retrying will not help.
type Error struct {
	Status int
	Reason string    // APNs's reason, e.g. "BadDeviceToken", "InvalidProviderToken", "Unregistered"
	ID     string    // apns-id of the refused request
	Since  time.Time // for 410: when the token stopped being valid, when APNs says
}

func (e *Error) Error() string {
	return fmt.Sprintf("apns: push refused: %d %s", e.Status, e.Reason)
}

// Is makes errors.Is(err, ErrUnregistered) true for a 410.
func (e *Error) Is(target error) bool {
	return target == ErrUnregistered && e.Status == http.StatusGone
}

// Auth authenticates the client to APNs: *TokenAuth or *CertificateAuth.
type Auth interface {
	authorize(r *http.Request) error
	configureTLS(c *tls.Config)
}

// CertificateAuth authenticates with the pass type's TLS client certificate.
type CertificateAuth struct{ Certificate tls.Certificate }

func (a *CertificateAuth) authorize(*http.Request) error { return nil }
func (a *CertificateAuth) configureTLS(c *tls.Config) {
	c.Certificates = []tls.Certificate{a.Certificate}
}

// Client sends pushes. Set the fields before the first Push; it is then safe for concurrent use.
type Client struct {
	// Endpoint is the APNs base URL: DefaultEndpoint when empty; a local stand-in in tests and
	// the sandbox. An http:// endpoint is spoken to with unencrypted HTTP/2.
	Endpoint string
	// Topic is the pass type identifier.
	Topic string
	Auth  Auth
	// MaxAttempts bounds the tries of one push (429, 5xx and network errors are retried);
	// 0 means 4.
	MaxAttempts int
	// Backoff is the wait before the first retry, doubled each time with jitter; 0 means 500ms.
	Backoff time.Duration
	// TLSConfig is the TLS configuration to start from (nil: the system's roots); tests give
	// their stand-in's root here. CertificateAuth adds its certificate to a copy.
	TLSConfig *tls.Config
	// HTTPClient replaces the client built from Endpoint, TLSConfig and Auth.
	HTTPClient *http.Client

	once   sync.Once
	client *http.Client
	base   string
}

func (c *Client) init() {
	c.base = strings.TrimRight(c.Endpoint, "/")
	if c.base == "" {
		c.base = DefaultEndpoint
	}
	if c.HTTPClient != nil {
		c.client = c.HTTPClient
		return
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.TLSConfig != nil {
		tlsConfig = c.TLSConfig.Clone()
	}
	t := &http.Transport{
		Proxy:               http.ProxyFromEnvironment,
		ForceAttemptHTTP2:   true, // a custom TLS config would otherwise leave the transport on HTTP/1.1
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     5 * time.Minute, // APNs wants connections kept open between pushes
	}
	if c.Auth != nil {
		c.Auth.configureTLS(t.TLSClientConfig)
	}
	if strings.HasPrefix(c.base, "http://") {
		// APNs speaks only HTTP/2; a plain-http stand-in is spoken to the same way, with prior knowledge.
		p := new(http.Protocols)
		p.SetUnencryptedHTTP2(true)
		t.Protocols = p
	}
	c.client = &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// emptyPayload is what Wallet expects: the push only says "ask the web service what changed".
var emptyPayload = []byte("{}")

// Push sends the empty pass-update push to deviceToken, retrying 429, 5xx and network errors
// with backoff until MaxAttempts or ctx ends. A refusal is an *Error (errors.Is ErrUnregistered
// for 410).
func (c *Client) Push(ctx context.Context, deviceToken string) error {
	c.once.Do(c.init)
	if !isHex(deviceToken) {
		return ErrBadDeviceToken
	}
	attempts := c.MaxAttempts
	if attempts <= 0 {
		attempts = 4
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = 500 * time.Millisecond
	}
	var last error
	for attempt := 1; ; attempt++ {
		retry, err := c.send(ctx, deviceToken)
		if err == nil {
			return nil
		}
		last = err
		if !retry || attempt >= attempts {
			break
		}
		// Full jitter over [wait/2, wait) spreads the retries of many pushes after an outage.
		d := wait/2 + rand.N(wait/2+1)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("apns: push to %s: %w (after: %v)", ShortToken(deviceToken), ctx.Err(), last)
		case <-t.C:
		}
		wait *= 2
	}
	return fmt.Errorf("apns: push to %s: %w", ShortToken(deviceToken), last)
}

// send makes one attempt; retry says whether another might succeed.
func (c *Client) send(ctx context.Context, token string) (retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/3/device/"+url.PathEscape(token), bytes.NewReader(emptyPayload))
	if err != nil {
		return false, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("apns-topic", c.Topic)
	req.Header.Set("apns-push-type", "background")
	req.Header.Set("apns-priority", "5") // background pushes must not be priority 10
	if c.Auth != nil {
		if err := c.Auth.authorize(req); err != nil {
			return false, err
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		// A network error is worth retrying unless the caller gave up.
		return ctx.Err() == nil, fmt.Errorf("send: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	if resp.StatusCode == http.StatusOK {
		return false, nil
	}
	var reason struct {
		Reason    string `json:"reason"`
		Timestamp int64  `json:"timestamp"`
	}
	_ = json.Unmarshal(body, &reason) // a body that is not APNs's JSON leaves the reason empty
	e := &Error{Status: resp.StatusCode, Reason: reason.Reason, ID: resp.Header.Get("apns-id")}
	if reason.Timestamp > 0 {
		e.Since = time.UnixMilli(reason.Timestamp)
	}
	if e.Reason == "" {
		e.Reason = http.StatusText(resp.StatusCode)
	}
	return resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500, e
}

func isHex(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f' || 'A' <= r && r <= 'F') {
			return false
		}
	}
	return true
}

// ShortToken is the start of a device token, for logs and pages: a whole token addresses a
// person's phone, and the start is enough to tell devices apart.
func ShortToken(token string) string {
	if len(token) <= 8 {
		return token
	}
	return token[:8] + "…"
}
