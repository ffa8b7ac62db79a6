package components

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/maphash"
	"io"
	"sync"

	"github.com/a-h/templ"

	"github.com/cinemabff/cinemabff/internal/gzjoin"
)

// At a rush many people look at the same showing at once, and most rows of its map look the
// same to all of them: the same seats, taken or free, in the same language; only the rows
// holding a person's own seats differ. The seats of a row are the bulk of a seat map page, so
// a row, once written, is kept and written again for the next viewer of that row in that
// state, instead of being written seat by seat for every view. The rows side by side that
// hold none of the viewer's own seats are kept together as a gzjoin.Part: a page that gzips
// its answer with gzjoin copies their compressed bytes instead of compressing them again.

// sharedRowsMax bounds the rows kept (about 4 KB each for a row of 20 seats in English), and
// sharedRunsMax the runs of rows (up to a whole area, some 50 KB of text and 5 KB compressed).
const (
	sharedRowsMax = 2048
	sharedRunsMax = 256
)

var (
	sharedRows = newKept[[]byte](sharedRowsMax)
	sharedRuns = newKept[*gzjoin.Part](sharedRunsMax)
)

// rowSeed keys the rows of this process; nothing outside it sees the sums.
var rowSeed = maphash.MakeSeed()

var keyBufs = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

// rowKey is what a row is written from: the form field, the row's own fields, every cell and
// the words of the page's language (one seatWords per localizer).
type rowKey struct {
	sum   uint64
	words *seatWords
}

// keyOfRow sums the row and its cells as bytes in one go (a hash per field of every seat
// cost more than writing the seats); buf is reused between rows.
func keyOfRow(field string, r *SeatRowView, words *seatWords, buf *[]byte) rowKey {
	b := append((*buf)[:0], field...)
	for _, str := range [...]string{r.ID, r.Label, r.TestID} {
		b = appendString(b, str)
	}
	b = binary.AppendUvarint(b, uint64(r.Free))
	b = binary.AppendUvarint(b, uint64(r.Seats))
	b = append(b, flag(r.Aisle))
	for i := range r.Cells {
		b = r.Cells[i].appendKey(b)
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
		b = appendString(b, str)
	}
	b = binary.AppendUvarint(b, uint64(s.sofaSize))
	return append(b, flag(c.Gap), flag(s.Checked), flag(s.Disabled), flag(s.Fixed), byte(s.kind), byte(s.cond))
}

// appendString appends str with its length before it, so that no two different fields write
// the same bytes.
func appendString(b []byte, str string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(str))), str...)
}

func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// kept holds written rows or runs by key, at most max of them. When full, one (whichever the
// map yields first) makes room: at a rush the ones viewed most are written again at once.
type kept[V any] struct {
	mu  sync.Mutex
	m   map[rowKey]V
	max int
}

func newKept[V any](max int) *kept[V] { return &kept[V]{m: make(map[rowKey]V, max), max: max} }

func (r *kept[V]) get(k rowKey) (V, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	v, ok := r.m[k]
	return v, ok
}

func (r *kept[V]) put(k rowKey, v V) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.m) >= r.max {
		for old := range r.m {
			delete(r.m, old)
			break
		}
	}
	r.m[k] = v
}

// sharedAreaRows writes the rows of an area as seatRow does. A run of rows side by side that
// holds none of the viewer's own seats is written from one kept gzjoin.Part (compressed once
// for every viewer of that state); a row with the viewer's own seats is written into the
// page itself. Each row's text comes from the kept rows when it was written before.
func sharedAreaRows(field string, rows []SeatRowView, words *seatWords) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		kb := keyBufs.Get().(*[]byte)
		defer keyBufs.Put(kb)
		keys := make([]rowKey, len(rows))
		start := 0
		for i := range rows {
			keys[i] = keyOfRow(field, &rows[i], words, kb)
			if !rows[i].holdsOwnSeat() {
				continue
			}
			if err := writeRun(ctx, w, field, rows[start:i], keys[start:i], words); err != nil {
				return err
			}
			b, err := rowText(ctx, field, &rows[i], keys[i], words)
			if err != nil {
				return err
			}
			if _, err := w.Write(b); err != nil {
				return err
			}
			start = i + 1
		}
		return writeRun(ctx, w, field, rows[start:], keys[start:], words)
	})
}

// holdsOwnSeat reports whether the row shows one of the viewer's own seats (chosen, or drawn
// as theirs): no other viewer sees the row so.
func (r *SeatRowView) holdsOwnSeat() bool {
	for i := range r.Cells {
		if s := &r.Cells[i].Seat; s.Checked || s.Fixed {
			return true
		}
	}
	return false
}

// writeRun writes rows side by side, with the keys of each, as one kept part.
func writeRun(ctx context.Context, w io.Writer, field string, rows []SeatRowView, keys []rowKey, words *seatWords) error {
	if len(rows) == 0 {
		return nil
	}
	sums := make([]byte, 0, 8*len(keys))
	for _, k := range keys {
		sums = binary.LittleEndian.AppendUint64(sums, k.sum)
	}
	k := rowKey{sum: maphash.Bytes(rowSeed, sums), words: words}
	part, ok := sharedRuns.get(k)
	if !ok {
		var buf bytes.Buffer
		for i := range rows {
			b, err := rowText(ctx, field, &rows[i], keys[i], words)
			if err != nil {
				return err
			}
			buf.Write(b)
		}
		part = gzjoin.NewPart(buf.Bytes())
		sharedRuns.put(k, part)
	}
	return gzjoin.Write(ctx, w, part)
}

// rowText is the row as seatRow writes it, from the kept rows when it was written before.
func rowText(ctx context.Context, field string, r *SeatRowView, k rowKey, words *seatWords) ([]byte, error) {
	if b, ok := sharedRows.get(k); ok {
		return b, nil
	}
	var buf bytes.Buffer
	if err := seatRow(field, *r, words).Render(ctx, &buf); err != nil {
		return nil, err
	}
	sharedRows.put(k, buf.Bytes())
	return buf.Bytes(), nil
}
