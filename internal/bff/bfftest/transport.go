package bfftest

import (
	"io"
	"net/http"
	"strings"
)

// LoseAnswer is an upstream transport (HarnessOpts.UpstreamTransport) that loses the answer of
// every POST whose path ends in Suffix: with Sent, the call reaches the ticketing system and
// its answer is lost on the way back; without, the connection is lost before it is sent.
type LoseAnswer struct {
	Next   http.RoundTripper
	Suffix string
	Sent   bool
}

func (l LoseAnswer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, l.Suffix) {
		return l.Next.RoundTrip(r)
	}
	if !l.Sent {
		return nil, io.ErrUnexpectedEOF
	}
	resp, err := l.Next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	return nil, io.ErrUnexpectedEOF
}
