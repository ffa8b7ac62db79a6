// Package googlewallet keeps a booking's Google Wallet event ticket objects true after the
// booking changes: it patches them through the Google Wallet REST API (one PATCH per object),
// authenticated as the operator's service account by OAuth's JWT grant. Its
// base URL and token URL are settings, so tests and the sandbox point both at the Recorder, a
// local stand-in that records what Google would have been asked.
package googlewallet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/cinemabff/cinemabff/internal/wallet/googlepass"
)

// ErrNotSaved says Google has no object of that id: nobody saved that ticket to a wallet, so
// there is nothing to keep true.
var ErrNotSaved = errors.New("googlewallet: no such object (never saved to a wallet)")

// Google's own addresses, the defaults of the settings.
const (
	DefaultBaseURL  = "https://walletobjects.googleapis.com/"
	DefaultTokenURL = "https://oauth2.googleapis.com/token"
)

// Options configure a Client.
type Options struct {
	BaseURL    string // "": Google's
	TokenURL   string // "": the key file's token_uri, else Google's
	Account    googlepass.ServiceAccount
	HTTPClient *http.Client // nil: one with a 20-second timeout
	// Attempts is how often a patch is tried while Google answers 429 or 5xx or cannot be
	// reached (0: 3); Backoff is the first wait between tries, doubled after each (0: 500 ms).
	Attempts int
	Backoff  time.Duration
}

// issuerScope is the OAuth scope of the Wallet API's issuer calls.
const issuerScope = "https://www.googleapis.com/auth/wallet_object.issuer"

// Client patches event ticket objects.
type Client struct {
	http     *http.Client // adds the OAuth token
	objects  string       // the object collection's URL, ending in "/"
	attempts int
	backoff  time.Duration
}

// New is a Client for the service account. Its OAuth tokens are fetched when first needed and
// reused until they expire.
func New(ctx context.Context, o Options) (*Client, error) {
	if o.Account.Email == "" || len(o.Account.PEM) == 0 {
		return nil, fmt.Errorf("googlewallet: %w", googlepass.ErrBadKey)
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 20 * time.Second}
	}
	base := firstOf(o.BaseURL, DefaultBaseURL)
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	grant := &jwt.Config{
		Email:      o.Account.Email,
		PrivateKey: o.Account.PEM,
		Scopes:     []string{issuerScope},
		TokenURL:   firstOf(o.TokenURL, o.Account.TokenURI, DefaultTokenURL),
	}
	tokens := oauth2.ReuseTokenSource(nil, grant.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc)))
	authed := &http.Client{Timeout: hc.Timeout, Transport: &oauth2.Transport{Source: tokens, Base: hc.Transport}}
	c := &Client{http: authed, objects: base + "walletobjects/v1/eventTicketObject/", attempts: o.Attempts, backoff: o.Backoff}
	if c.attempts <= 0 {
		c.attempts = 3
	}
	if c.backoff <= 0 {
		c.backoff = 500 * time.Millisecond
	}
	return c, nil
}

// Patch writes the fields set in o over the object with o's id (patch semantics: an object
// with only Id and State set changes only its state).
func (c *Client) Patch(ctx context.Context, o *googlepass.Object) error {
	wait := c.backoff
	for attempt := 1; ; attempt++ {
		err := c.patchOnce(ctx, o)
		if err == nil {
			return nil
		}
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
			return fmt.Errorf("%w: %s", ErrNotSaved, o.ID)
		}
		if attempt >= c.attempts || !retryable(err) || ctx.Err() != nil {
			return fmt.Errorf("googlewallet: patch %s (attempt %d): %w", o.ID, attempt, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("googlewallet: patch %s: %w", o.ID, ctx.Err())
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// APIError is Google's answer to a call it refused or failed: its status and message.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("google wallet api: %d %s", e.Status, e.Message)
}

// patchOnce sends one PATCH of o to its object's URL.
func (c *Client) patchOnce(ctx context.Context, o *googlepass.Object) error {
	body, err := json.Marshal(o)
	if err != nil {
		return fmt.Errorf("encode object: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, c.objects+url.PathEscape(o.ID), bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	return apiErrorOf(resp.StatusCode, answer)
}

// apiErrorOf reads Google's error body ({"error": {"code": …, "message": …}}), or keeps the
// status alone when the body is something else (a proxy's page).
func apiErrorOf(status int, body []byte) *APIError {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := http.StatusText(status)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	return &APIError{Status: status, Message: msg}
}

// retryable says whether trying again may help: Google was busy or failing, or not reached.
// A refusal of the request itself (400, 401, 403) will not change by asking again.
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Status == http.StatusTooManyRequests || ae.Status >= 500
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		return re.Response != nil && re.Response.StatusCode >= 500
	}
	return true
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
