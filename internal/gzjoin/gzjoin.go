// Package gzjoin writes a page's gzip answer in parts, so that a part shown on many pages at
// once (a row of a seat map, the same for everyone looking at that showing) is compressed once
// and its compressed bytes are copied into every page that shows it.
//
// A deflate stream may be made of blocks from different compressors as long as none refers
// back past its own start: each part is compressed by a compressor of its own and ends on a
// byte boundary (a sync flush), and the page's own text between the parts is compressed by a
// compressor reset at each part. The gzip trailer's checksum and length are those of the whole
// page.
//
// While a page renders, a part is written into it as a marker (see Page.Write); Page.Gzip
// then compresses the page with each marker's part in its place. A page rendered without a
// Page in its context gets the part's text itself.
package gzjoin

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Part is text shared by many pages, with its deflate blocks made on first use.
type Part struct {
	plain  []byte
	once   sync.Once
	blocks []byte
	err    error
}

// NewPart keeps plain as a part; plain must not change afterwards.
func NewPart(plain []byte) *Part { return &Part{plain: plain} }

// partLevel: a part is compressed once for many pages, so it can take the default level's time
// for its smaller output.
const partLevel = flate.DefaultCompression

// deflated returns the part's deflate blocks, not final, ending on a byte boundary.
func (p *Part) deflated() ([]byte, error) {
	p.once.Do(func() {
		var b bytes.Buffer
		fw, err := flate.NewWriter(&b, partLevel)
		if err == nil {
			_, err = fw.Write(p.plain)
		}
		if err == nil {
			err = fw.Flush()
		}
		p.blocks, p.err = b.Bytes(), err
	})
	return p.blocks, p.err
}

// markerLen is the marker's length: a NUL, this process's 11 random bytes, the part's index.
const markerLen = 16

// markerPrefix begins every marker of this process: a NUL byte, which HTML text does not
// hold, and random bytes no page can guess.
var markerPrefix = func() [markerLen - 4]byte {
	var p [markerLen - 4]byte
	_, _ = rand.Read(p[1:])
	return p
}()

// Page collects the parts written into one page while it renders.
type Page struct {
	parts []*Part
}

type pageKey struct{}

// With returns a context whose pages write parts as markers into p.
func With(ctx context.Context, p *Page) context.Context { return context.WithValue(ctx, pageKey{}, p) }

// Write writes part into w: as a marker when ctx carries a Page, otherwise as its text.
func Write(ctx context.Context, w io.Writer, part *Part) error {
	p, _ := ctx.Value(pageKey{}).(*Page)
	if p == nil {
		_, err := w.Write(part.plain)
		return err
	}
	var m [markerLen]byte
	copy(m[:], markerPrefix[:])
	binary.BigEndian.PutUint32(m[len(markerPrefix):], uint32(len(p.parts)))
	p.parts = append(p.parts, part)
	_, err := w.Write(m[:])
	return err
}

// Joined reports whether any part was written as a marker: only then does the page need Gzip.
func (p *Page) Joined() bool { return len(p.parts) > 0 }

// ErrMarker is returned for a page whose markers are not the parts written into it, in order.
var ErrMarker = errors.New("gzjoin: a part's marker is missing or out of order")

// writers keeps compressors of the page's own text between pages.
var writers = sync.Pool{New: func() any {
	fw, _ := flate.NewWriter(nil, flate.BestSpeed)
	return fw
}}

// Gzip writes into dst the gzip stream of page, with each marker replaced by its part.
func (p *Page) Gzip(dst *bytes.Buffer, page []byte) error {
	fw := writers.Get().(*flate.Writer)
	defer writers.Put(fw)
	dst.Write([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}) // gzip, deflate, no name, no time, unknown OS
	crc, size := uint32(0), 0
	own := func(text []byte, last bool) error {
		crc, size = crc32.Update(crc, crc32.IEEETable, text), size+len(text)
		fw.Reset(dst)
		if _, err := fw.Write(text); err != nil {
			return err
		}
		if last {
			return fw.Close()
		}
		return fw.Flush()
	}
	rest := page
	for i, part := range p.parts {
		at := bytes.Index(rest, markerPrefix[:])
		if at < 0 || len(rest) < at+markerLen || binary.BigEndian.Uint32(rest[at+len(markerPrefix):]) != uint32(i) {
			return ErrMarker
		}
		if at > 0 { // parts side by side need nothing between them
			if err := own(rest[:at], false); err != nil {
				return fmt.Errorf("gzjoin: compress: %w", err)
			}
		}
		blocks, err := part.deflated()
		if err != nil {
			return fmt.Errorf("gzjoin: compress a part: %w", err)
		}
		dst.Write(blocks)
		crc, size = crc32.Update(crc, crc32.IEEETable, part.plain), size+len(part.plain)
		rest = rest[at+markerLen:]
	}
	if bytes.Contains(rest, markerPrefix[:]) {
		return ErrMarker
	}
	if err := own(rest, true); err != nil {
		return fmt.Errorf("gzjoin: compress: %w", err)
	}
	dst.Write(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, crc), uint32(size)))
	return nil
}
