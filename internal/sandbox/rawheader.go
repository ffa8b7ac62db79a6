package sandbox

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// tokenHeader is the token header's name exactly as the real service wants
// it on the wire (wire-profile "Transport"): lower case. Go's net/http
// server canonicalises header names before a handler sees them, so the raw
// name is read from the connection's bytes: WrapListener wraps every
// accepted connection in a headConn that scans the request heads as they
// are read, and ConnContext hands the headConn to the handlers.
const tokenHeader = "connectapitoken"

// maxLine is how much of a line the scanner keeps: enough for the header
// names and the short values it needs (Content-Length, Transfer-Encoding,
// a chunk size). Longer lines are cut, which only loses their tail.
const maxLine = 128

// WrapListener returns a listener whose connections record the raw names of
// the token header lines of each request head. Serve the sandbox handler
// from it with ConnContext set as the http.Server's ConnContext (Serve does
// both), so the sandbox can refuse a token header whose raw name is not
// exactly "connectapitoken". Plain HTTP/1.x only.
func WrapListener(l net.Listener) net.Listener { return &headListener{l} }

// ConnContext is an http.Server ConnContext function: it makes the raw
// header record of a connection accepted by WrapListener visible to the
// sandbox handler. Other connections pass through unchanged.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if hc, ok := c.(*headConn); ok {
		return context.WithValue(ctx, headConnKey{}, hc)
	}
	return ctx
}

// Serve serves hs on l with the raw token header check switched on: it sets
// hs.ConnContext (keeping a ConnContext already set) and serves on
// WrapListener(l). It returns what hs.Serve returns.
func Serve(hs *http.Server, l net.Listener) error {
	prev := hs.ConnContext
	hs.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		if prev != nil {
			ctx = prev(ctx, c)
		}
		return ConnContext(ctx, c)
	}
	return hs.Serve(WrapListener(l))
}

type headConnKey struct{}

type headListener struct{ net.Listener }

func (l *headListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &headConn{Conn: c}, nil
}

// headConn is a connection that scans what it reads for request heads.
// Requests on one connection are sequential (the sandbox's clients do not
// pipeline), so when a handler runs, the last complete head is its own.
type headConn struct {
	net.Conn
	mu   sync.Mutex
	scan headScanner
}

func (c *headConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.scan.feed(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// CloseWrite keeps the server's graceful close of a TCP connection working
// through the wrapper.
func (c *headConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// tokenNames returns the raw names of the token header lines of the last
// complete request head; ok is false when no head was understood.
func (c *headConn) tokenNames() (names []string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scan.state == scanLost || !c.scan.seen {
		return nil, false
	}
	return c.scan.last, true
}

// rawTokenNames returns the raw token header names of the request r, when
// it came through WrapListener and ConnContext.
func rawTokenNames(r *http.Request) (names []string, ok bool) {
	hc, found := r.Context().Value(headConnKey{}).(*headConn)
	if !found {
		return nil, false
	}
	return hc.tokenNames()
}

type scanState int

const (
	scanHead      scanState = iota // request line and header lines
	scanBody                       // skipping a Content-Length body
	scanChunkSize                  // a chunk-size line
	scanChunkData                  // skipping chunk data
	scanChunkEnd                   // the CRLF after chunk data
	scanTrailer                    // trailer lines after the last chunk
	scanLost                       // framing not understood: nothing more is recorded
)

// headScanner follows the HTTP/1.x request framing of one connection: it
// reads head lines, skips bodies by Content-Length or chunked encoding, and
// keeps the raw token header names of the last complete head. A line split
// over reads is carried over in line.
type headScanner struct {
	state   scanState
	line    []byte // the current line so far (at most maxLine bytes)
	lines   int    // lines of the current head so far
	names   []string
	length  int64
	chunked bool
	remain  int64    // body or chunk bytes still to skip
	last    []string // token header names of the last complete head
	seen    bool     // a head was completed
}

func (sc *headScanner) feed(p []byte) {
	for len(p) > 0 && sc.state != scanLost {
		if sc.state == scanBody || sc.state == scanChunkData {
			p = sc.skip(p)
			continue
		}
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			sc.keep(p)
			return
		}
		sc.keep(p[:i])
		p = p[i+1:]
		sc.endLine(bytes.TrimSuffix(sc.line, []byte("\r")))
		sc.line = sc.line[:0]
	}
}

// keep appends to the current line up to maxLine bytes.
func (sc *headScanner) keep(p []byte) {
	if room := maxLine - len(sc.line); room > 0 {
		sc.line = append(sc.line, p[:min(room, len(p))]...)
	}
}

// skip consumes body or chunk bytes.
func (sc *headScanner) skip(p []byte) []byte {
	k := min(sc.remain, int64(len(p)))
	sc.remain -= k
	if sc.remain == 0 {
		if sc.state == scanBody {
			sc.startHead()
		} else {
			sc.state = scanChunkEnd
		}
	}
	return p[k:]
}

func (sc *headScanner) endLine(line []byte) {
	switch sc.state {
	case scanHead:
		sc.headLine(line)
	case scanChunkSize:
		sc.chunkSize(line)
	case scanChunkEnd:
		sc.state = scanChunkSize
	case scanTrailer:
		if len(line) == 0 {
			sc.startHead()
		}
	}
}

func (sc *headScanner) startHead() {
	sc.state, sc.lines, sc.names, sc.length, sc.chunked = scanHead, 0, nil, 0, false
}

func (sc *headScanner) headLine(line []byte) {
	switch {
	case len(line) == 0 && sc.lines == 0:
		return // blank lines before a request line are tolerated
	case len(line) == 0:
		sc.endHead()
		return
	}
	sc.lines++
	if sc.lines == 1 || line[0] == ' ' || line[0] == '\t' {
		return // the request line, or a folded continuation
	}
	name, value, ok := bytes.Cut(line, []byte(":"))
	if !ok {
		return
	}
	value = bytes.TrimSpace(value)
	switch n := string(name); {
	case strings.EqualFold(n, tokenHeader):
		sc.names = append(sc.names, n)
	case strings.EqualFold(n, "Content-Length"):
		v, err := strconv.ParseInt(string(value), 10, 64)
		if err != nil || v < 0 {
			sc.state = scanLost // the server refuses it and closes the connection
			return
		}
		sc.length = v
	case strings.EqualFold(n, "Transfer-Encoding"):
		sc.chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
	}
}

// endHead records the finished head and moves on to its body, if any.
func (sc *headScanner) endHead() {
	sc.last, sc.seen = sc.names, true
	switch {
	case sc.chunked:
		sc.state = scanChunkSize
	case sc.length > 0:
		sc.state, sc.remain = scanBody, sc.length
	default:
		sc.startHead()
	}
}

func (sc *headScanner) chunkSize(line []byte) {
	hexSize, _, _ := bytes.Cut(line, []byte(";"))
	n, err := strconv.ParseInt(string(bytes.TrimSpace(hexSize)), 16, 64)
	switch {
	case err != nil || n < 0:
		sc.state = scanLost
	case n == 0:
		sc.state = scanTrailer
	default:
		sc.state, sc.remain = scanChunkData, n
	}
}
