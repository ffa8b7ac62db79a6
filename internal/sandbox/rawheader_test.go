package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// rawConn is a plain TCP connection to the harness for writing request
// heads byte for byte, the way a client that sets the raw key does.
type rawConn struct {
	t    *testing.T
	conn net.Conn
	r    *bufio.Reader
}

func (h *harness) dialRaw(t *testing.T) *rawConn {
	t.Helper()
	u, err := url.Parse(h.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// send writes the parts one by one (a pause between them makes the server
// see them in separate reads) and reads one response.
func (c *rawConn) send(parts ...string) (int, string) {
	c.t.Helper()
	for i, p := range parts {
		if i > 0 {
			time.Sleep(20 * time.Millisecond)
		}
		if _, err := io.WriteString(c.conn, p); err != nil {
			c.t.Fatalf("write: %v", err)
		}
	}
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		c.t.Fatalf("read response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("read body: %v", err)
	}
	return resp.StatusCode, string(body)
}

// rawGet is a GET head with the given header lines.
func rawGet(path string, lines ...string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "GET %s HTTP/1.1\r\nHost: sandbox\r\n", path)
	for _, l := range lines {
		sb.WriteString(l + "\r\n")
	}
	sb.WriteString("\r\n")
	return sb.String()
}

// rawPost is a POST with a Content-Length body.
func rawPost(path, body string, lines ...string) string {
	head := rawGet(path, append(lines, "Content-Type: application/json", fmt.Sprintf("Content-Length: %d", len(body)))...)
	return "POST" + strings.TrimPrefix(head, "GET") + body
}

func TestTokenHeaderRawName(t *testing.T) {
	h := newHarness(t)
	_, wrongTokenBody := h.dialRaw(t).send(rawGet("/OData.svc/Cinemas", "connectapitoken: nope"))
	cases := []struct {
		name   string
		lines  []string
		status int
	}{
		{"lower-case name", []string{"connectapitoken: " + testToken}, 200},
		{"Go's canonical form", []string{"Connectapitoken: " + testToken}, 403},
		{"upper case", []string{"CONNECTAPITOKEN: " + testToken}, 403},
		{"one letter upper case", []string{"connectApitoken: " + testToken}, 403},
		{"both casings", []string{"connectapitoken: " + testToken, "Connectapitoken: " + testToken}, 403},
		{"lower-case name, wrong token", []string{"connectapitoken: nope"}, 403},
		{"no space after the colon", []string{"connectapitoken:" + testToken}, 200},
		{"missing", nil, 401},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, body := h.dialRaw(t).send(rawGet("/OData.svc/Cinemas", tc.lines...))
			if st != tc.status {
				t.Fatalf("status %d, want %d: %s", st, tc.status, body)
			}
			if st == 403 && body != wrongTokenBody {
				t.Fatalf("refusal body %s, want the wrong-token body %s", body, wrongTokenBody)
			}
		})
	}
}

// Requests on one keep-alive connection are judged by their own heads,
// also after bodies that look like header lines and when a name is split
// over two reads.
func TestTokenHeaderRawNameOnOneConnection(t *testing.T) {
	h := newHarness(t)
	c := h.dialRaw(t)
	lower, canonical := "connectapitoken: "+testToken, "Connectapitoken: "+testToken
	fakeHead := "{\"UserSessionId\":\"x\"}\r\nConnectapitoken: " + testToken + "\r\n\r\n"
	chunkBody := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(fakeHead), fakeHead)
	steps := []struct {
		name   string
		parts  []string
		status int
	}{
		{"canonical first", []string{rawGet("/OData.svc/Cinemas", canonical)}, 403},
		{"then lower case", []string{rawGet("/OData.svc/Cinemas", lower)}, 200},
		{"a body that looks like a head", []string{rawPost("/RESTTicketing.svc/order", fakeHead, lower)}, 400},
		{"lower case after that body", []string{rawGet("/OData.svc/Cinemas", lower)}, 200},
		{"chunked body", []string{"POST /RESTTicketing.svc/order HTTP/1.1\r\nHost: sandbox\r\n" + lower + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkBody}, 400},
		{"canonical after the chunked body", []string{rawGet("/OData.svc/Cinemas", canonical)}, 403},
		{"name split over two reads", []string{"GET /OData.svc/Cinemas HTTP/1.1\r\nHost: sandbox\r\nconnect", "apitoken: " + testToken + "\r\n\r\n"}, 200},
		{"canonical name split over two reads", []string{"GET /OData.svc/Cinemas HTTP/1.1\r\nHost: sandbox\r\nConnect", "apitoken: " + testToken + "\r\n\r\n"}, 403},
		{"line end split over two reads", []string{"GET /OData.svc/Cinemas HTTP/1.1\r\nHost: sandbox\r\n" + lower + "\r", "\n\r\n"}, 200},
	}
	for _, st := range steps {
		if got, body := c.send(st.parts...); got != st.status {
			t.Fatalf("%s: status %d, want %d: %s", st.name, got, st.status, body)
		}
	}
}

// A Go client that writes the header with Header.Set sends "Connectapitoken"
// and is refused; one that sets the raw key is served.
func TestTokenHeaderFromGoClient(t *testing.T) {
	h := newHarness(t)
	for _, tc := range []struct {
		name   string
		set    func(http.Header)
		status int
	}{
		{"Header.Set", func(hd http.Header) { hd.Set(tokenHeader, testToken) }, 403},
		{"raw key", func(hd http.Header) { hd[tokenHeader] = []string{testToken} }, 200},
	} {
		req, err := http.NewRequest(http.MethodGet, h.url+"/OData.svc/Cinemas", nil)
		if err != nil {
			t.Fatal(err)
		}
		tc.set(req.Header)
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Fatalf("%s: status %d, want %d", tc.name, resp.StatusCode, tc.status)
		}
	}
}

// The scanner gives the same answer however the stream is cut into reads.
func TestHeadScanner(t *testing.T) {
	lower, canonical := "connectapitoken: t", "Connectapitoken: t"
	body := "{\"a\":1}\r\nConnectapitoken: t\r\n\r\n"
	cases := []struct {
		name   string
		stream string
		want   []string
		lost   bool
	}{
		{"one head", rawGet("/", lower), []string{"connectapitoken"}, false},
		{"the last head counts", rawGet("/", canonical) + rawGet("/", lower), []string{"connectapitoken"}, false},
		{"no token", rawGet("/", "Accept: */*"), nil, false},
		{"body skipped by length", rawPost("/", body, lower), []string{"connectapitoken"}, false},
		{"next head after a body", rawPost("/", body, lower) + rawGet("/", canonical), []string{"Connectapitoken"}, false},
		{"chunked body with a trailer", "POST / HTTP/1.1\r\n" + lower + "\r\nTransfer-Encoding: chunked\r\n\r\n" +
			fmt.Sprintf("%x;ext=1\r\n%s\r\n0\r\nX-Trailer: 1\r\n\r\n", len(body), body) + rawGet("/", "CONNECTAPITOKEN: t"), []string{"CONNECTAPITOKEN"}, false},
		{"leading blank line", "\r\n" + rawGet("/", lower), []string{"connectapitoken"}, false},
		{"long lines are cut", rawGet("/"+strings.Repeat("a", 3*maxLine), "Cookie: "+strings.Repeat("c", 3*maxLine), canonical), []string{"Connectapitoken"}, false},
		{"bad chunk size", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", nil, true},
	}
	for _, tc := range cases {
		for _, size := range []int{1, 2, 3, 7, 64, len(tc.stream)} {
			var sc headScanner
			for rest := []byte(tc.stream); len(rest) > 0; {
				n := min(size, len(rest))
				sc.feed(rest[:n])
				rest = rest[n:]
			}
			if lost := sc.state == scanLost; lost != tc.lost {
				t.Fatalf("%s, reads of %d: lost %v", tc.name, size, lost)
			}
			if !tc.lost && (!sc.seen || !slices.Equal(sc.last, tc.want)) {
				t.Fatalf("%s, reads of %d: names %q, want %q", tc.name, size, sc.last, tc.want)
			}
		}
	}
}

// Without WrapListener and ConnContext the raw name cannot be seen: the
// canonical form is served (the sandbox logs that it cannot check).
func TestTokenHeaderUncheckedWithoutWrapper(t *testing.T) {
	h := newHarness(t)
	r, err := http.NewRequest(http.MethodGet, "/OData.svc/Cinemas", nil)
	if err != nil {
		t.Fatal(err)
	}
	r.Header.Set(tokenHeader, testToken)
	w := &discardWriter{h: http.Header{}}
	h.srv.Handler().ServeHTTP(w, r)
	if w.status != 200 {
		t.Fatalf("status %d", w.status)
	}
}
