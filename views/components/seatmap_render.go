package components

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// seatCells writes the cells of one row: the seats (the bulk of every seat map page) are
// written by hand rather than by templ so that a seat costs its bytes and no allocations
// (templ builds a class list per element). The markup is what seatmap.templ would write:
//
//	<label class="seat …"><input type="checkbox" name="seat" value="1-5-11" aria-label="Row F, seat 12, standard, free" [checked] [disabled]><i aria-hidden="true">12</i></label>
//	<span class="seat seat-yours" role="img" aria-label="…"><i aria-hidden="true">12</i></span>
//	<span class="seat-gap"></span>
func seatCells(field string, cells []SeatCellView, words *seatWords) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		hw := newHTMLWriter(w)
		put := hw.escaped
		var num [32]byte
		for i := range cells {
			c := &cells[i]
			if c.Gap {
				hw.raw(`<span class="seat-gap"></span>`)
				continue
			}
			s := &c.Seat
			if s.Fixed {
				hw.raw(`<span class="`)
				hw.escaped(s.Class)
				hw.raw(`" role="img" aria-label="`)
				s.writeName(words, put)
				hw.raw(`"><i aria-hidden="true">`)
				hw.escaped(s.Label)
				hw.raw(`</i></span>`)
				continue
			}
			hw.raw(`<label class="`)
			hw.escaped(s.Class)
			hw.raw(`"><input type="checkbox" name="`)
			hw.escaped(field)
			hw.raw(`" value="`)
			hw.bytes(appendSeatValue(num[:0], s.Pos))
			hw.raw(`" aria-label="`)
			s.writeName(words, put)
			hw.raw(`"`)
			if s.Checked {
				hw.raw(` checked`)
			}
			if s.Disabled {
				hw.raw(` disabled`)
			}
			hw.raw(`><i aria-hidden="true">`)
			hw.escaped(s.Label)
			hw.raw(`</i></label>`)
		}
		return hw.err
	})
}

// htmlWriter writes to w, keeping the first error.
type htmlWriter struct {
	w   io.Writer
	sw  io.StringWriter // w, when it writes strings itself (templ's buffer does)
	err error
}

func newHTMLWriter(w io.Writer) htmlWriter {
	sw, _ := w.(io.StringWriter)
	return htmlWriter{w: w, sw: sw}
}

func (h *htmlWriter) raw(s string) {
	if h.err != nil || s == "" {
		return
	}
	if h.sw != nil {
		_, h.err = h.sw.WriteString(s)
		return
	}
	_, h.err = io.WriteString(h.w, s)
}

func (h *htmlWriter) bytes(b []byte) {
	if h.err == nil {
		_, h.err = h.w.Write(b)
	}
}

// escaped writes s escaped for text and quoted attribute values, as html.EscapeString does
// (the same five entities), in pieces: the text between the characters to escape is written
// as it is, so nothing is allocated.
func (h *htmlWriter) escaped(s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '&':
			esc = "&amp;"
		case '\'':
			esc = "&#39;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			esc = "&#34;"
		default:
			continue
		}
		h.raw(s[last:i])
		h.raw(esc)
		last = i + 1
	}
	h.raw(s[last:])
}
