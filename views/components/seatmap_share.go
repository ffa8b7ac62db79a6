package components

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"io"
	"sync"

	"github.com/a-h/templ"
)

// At a rush many people look at the same showing at once, and most rows of its map look the
// same to all of them: the same seats, taken or free, in the same language; only the rows
// holding a person's own seats differ. The seats of a row are the bulk of a seat map page, so
// a row's seats, once written, are kept and written again for the next viewer of that row in
// that state, instead of being written seat by seat for every view.

// sharedRowsMax bounds the rows kept (about 4 KB each for a row of 20 seats in English).
const sharedRowsMax = 2048

var sharedRows = rowRenders{m: make(map[rowKey][]byte, sharedRowsMax)}

// rowSeed keys the rows of this process; nothing outside it sees the sums.
var rowSeed = maphash.MakeSeed()

var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// rowKey is what a row's seats are written from: the form field, every cell and the words
// of the page's language (one seatWords per localizer).
type rowKey struct {
	sum   uint64
	words *seatWords
}

// keyOfRow sums the row's cells as bytes in one go (a hash per field of every seat cost
// more than writing the seats); buf is reused between rows.
func keyOfRow(field string, cells []SeatCellView, words *seatWords, buf *[]byte) rowKey {
	b := append((*buf)[:0], field...)
	for i := range cells {
		b = cells[i].appendKey(b)
	}
	*buf = b
	return rowKey{sum: maphash.Bytes(rowSeed, b), words: words}
}

// appendKey appends every field of c, each string with its length before it so that no two
// cells write the same bytes. A field added to SeatView must be added here
// (TestRowKeyHoldsEverySeatField counts them).
func (c *SeatCellView) appendKey(b []byte) []byte {
	s := &c.Seat
	b = binary.AppendUvarint(b, uint64(s.Pos.AreaNumber))
	b = binary.AppendUvarint(b, uint64(s.Pos.RowIndex))
	b = binary.AppendUvarint(b, uint64(s.Pos.ColumnIndex))
	for _, str := range [...]string{s.Row, s.Label, s.Category, s.State, s.Class, s.category} {
		b = binary.AppendUvarint(b, uint64(len(str)))
		b = append(b, str...)
	}
	b = binary.AppendUvarint(b, uint64(s.sofaSize))
	return append(b, flag(c.Gap), flag(s.Checked), flag(s.Disabled), flag(s.Fixed), byte(s.kind), byte(s.cond))
}

func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// rowRenders keeps written rows by key. When full, one row (whichever the map yields first)
// makes room: at a rush the rows viewed most are written again at once.
type rowRenders struct {
	mu sync.Mutex
	m  map[rowKey][]byte
}

func (r *rowRenders) get(k rowKey) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, ok := r.m[k]
	return b, ok
}

func (r *rowRenders) put(k rowKey, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= sharedRowsMax {
		for old := range r.m {
			delete(r.m, old)
			break
		}
	}
	r.m[k] = b
}

// sharedSeatCells writes the cells of one row as seatCells does, from the kept copy when a
// row in the same state was written before.
func sharedSeatCells(field string, cells []SeatCellView, words *seatWords) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		kb := keyBufs.Get().(*[]byte)
		k := keyOfRow(field, cells, words, kb)
		keyBufs.Put(kb)
		if b, ok := sharedRows.get(k); ok {
			_, err := w.Write(b)
			return err
		}
		var buf bytes.Buffer
		if err := seatCells(field, cells, words).Render(ctx, &buf); err != nil {
			return err
		}
		sharedRows.put(k, buf.Bytes())
		_, err := w.Write(buf.Bytes())
		return err
	})
}
