package gzjoin

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
)

// render writes the pieces into a page as a template would: strings as text, parts through
// Write with ctx.
func render(t *testing.T, ctx context.Context, pieces []any) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range pieces {
		switch v := p.(type) {
		case string:
			b.WriteString(v)
		case *Part:
			if err := Write(ctx, &b, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return b.Bytes()
}

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not gzip: %v", err)
	}
	out, err := io.ReadAll(zr) // checks the trailer's checksum and length too
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return string(out)
}

func TestGzipIsThePageWithItsParts(t *testing.T) {
	row := NewPart([]byte(strings.Repeat(`<label class="seat"><input type="checkbox" name="seat" value="1-0-1"></label>`, 40)))
	other := NewPart([]byte(`<label class="seat seat-taken">7</label>`))
	empty := NewPart(nil)
	cases := []struct {
		name   string
		pieces []any
	}{
		{"no part", []any{"<p>only the page's own text</p>"}},
		{"one part inside", []any{"<div>", row, "</div>"}},
		{"parts side by side", []any{"<div>", row, other, row, "</div>"}},
		{"part first and last", []any{row, "<hr>", other}},
		{"an empty part", []any{"a", empty, "b"}},
		{"nothing of its own", []any{row}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := string(render(t, context.Background(), c.pieces))
			var p Page
			page := render(t, With(context.Background(), &p), c.pieces)
			var gz bytes.Buffer
			if err := p.Gzip(&gz, page); err != nil {
				t.Fatal(err)
			}
			if got := gunzip(t, gz.Bytes()); got != want {
				t.Errorf("gunzipped page differs:\n got %.200q\nwant %.200q", got, want)
			}
		})
	}
}

func TestAPartIsCompressedOnceForEveryPage(t *testing.T) {
	row := NewPart([]byte(strings.Repeat(`<label class="seat">12</label>`, 200)))
	var sizes []int
	for range 3 {
		var p Page
		page := render(t, With(context.Background(), &p), []any{"<main>", row, "</main>"})
		var gz bytes.Buffer
		if err := p.Gzip(&gz, page); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, gz.Len())
	}
	first, err := row.deflated()
	if err != nil {
		t.Fatal(err)
	}
	again, _ := row.deflated()
	if &first[0] != &again[0] {
		t.Error("the part was compressed again")
	}
	if sizes[0] != sizes[1] || sizes[1] != sizes[2] || sizes[0] >= len(row.plain) {
		t.Errorf("gzip sizes %v for a part of %d bytes", sizes, len(row.plain))
	}
}

func TestAMarkerNotInItsPlaceIsRefused(t *testing.T) {
	a, b := NewPart([]byte("A")), NewPart([]byte("B"))
	var p Page
	ctx := With(context.Background(), &p)
	page := render(t, ctx, []any{"x", a, "y", b, "z"})
	cases := map[string][]byte{
		"a marker missing": bytes.Replace(page, page[1:1+markerLen], nil, 1),
		"markers swapped": append(append(append([]byte("x"), page[2+markerLen:2+2*markerLen]...), 'y'),
			append(page[1:1+markerLen:1+markerLen], 'z')...),
		"a marker too many": append(append([]byte{}, page...), page[1:1+markerLen]...),
	}
	for name, bad := range cases {
		if err := p.Gzip(&bytes.Buffer{}, bad); !errors.Is(err, ErrMarker) {
			t.Errorf("%s: err %v, want ErrMarker", name, err)
		}
	}
}
