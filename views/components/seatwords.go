package components

import (
	"strconv"
	"strings"
	"sync"

	"github.com/cinemabff/cinemabff/internal/i18n"
)

// msg marks a catalog message id written later, when a component is rendered in the page's
// language. The catalog tests find the ids it marks.
func msg(id string) string { return id }

// messagePart is a piece of a message split at its placeholders: text, or the slot'th value.
type messagePart struct {
	text string
	slot int // -1: text
}

// splitMessage is message id in l's language cut at the placeholders named by slots, in the
// language's order: the pieces a writer puts between its values without filling a template
// each time (a seat's name is written hundreds of times per page).
func splitMessage(l *i18n.Localizer, id string, slots ...string) []messagePart {
	kv := make([]any, 0, 2*len(slots))
	for i, name := range slots {
		kv = append(kv, name, string(rune(0xE000+i)))
	}
	s := l.T(id, kv...)
	var out []messagePart
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool { return r >= 0xE000 && r < 0xE000+rune(len(slots)) })
		if i < 0 {
			out = append(out, messagePart{text: s, slot: -1})
			break
		}
		if i > 0 {
			out = append(out, messagePart{text: s[:i], slot: -1})
		}
		r := []rune(s[i:])[0]
		out = append(out, messagePart{slot: int(r - 0xE000)})
		s = s[i+len(string(r)):]
	}
	return out
}

// seatWords are the words of a seat map in one language: the seats' names are put together
// from them, and the script's live texts are filled in from its templates.
type seatWords struct {
	l             *i18n.Localizer
	name          []messagePart // "Row {{.Row}}, seat {{.Seat}}"
	row           []messagePart // "Row {{.Row}}, {{.Free}} of {{.Seats}} free"
	sep           string        // between the parts of a name: ", "
	lowerCategory bool          // the area category is written in lower case inside a name
	kinds         [numKinds]string
	conditions    [numConditions]string
	// The templates of the live count (the map's own) and of the limit hint, for a
	// maximum of more than one and of one.
	countOther, countOne    string
	limitOver, limitOverOne string
	// The answer to a tap on a seat: "Row {row} · Seat {seat}", then " · " and the price or
	// the state ("chosen" once ticked).
	tap, tapChosen, tapMoved string
}

// seatWordsOf caches the seat words of each localizer: a localizer's words never change, and
// looking them up costs a page about as much as its seats.
var seatWordsOf sync.Map // *i18n.Localizer → *seatWords

// wordsFor are the seat map's words in l's language.
func wordsFor(l *i18n.Localizer) *seatWords {
	if w, ok := seatWordsOf.Load(l); ok {
		return w.(*seatWords)
	}
	w, _ := seatWordsOf.LoadOrStore(l, newSeatWords(l))
	return w.(*seatWords)
}

func newSeatWords(l *i18n.Localizer) *seatWords {
	w := &seatWords{l: l,
		name:          splitMessage(l, msg("common.seat"), "Row", "Seat"),
		row:           splitMessage(l, msg("ui.seatmap.row_summary"), "Row", "Free", "Seats"),
		sep:           l.T("ui.seatmap.name_separator"),
		lowerCategory: l.T("ui.seatmap.category_lower_case") == "yes",
	}
	w.kinds[kindWheelchair] = l.T("ui.seatmap.kind.wheelchair")
	w.kinds[kindCompanion] = l.T("ui.seatmap.kind.companion")
	// The common sofa, for two, is ready; others are written when met.
	w.kinds[kindSofaLeft] = l.T("ui.seatmap.kind.sofa_left", "Places", 2)
	w.kinds[kindSofaRight] = l.T("ui.seatmap.kind.sofa_right", "Places", 2)
	w.conditions = [numConditions]string{
		condFree:        l.T("ui.seatmap.seat.free"),
		condTaken:       l.T("ui.seatmap.seat.taken"),
		condYours:       l.T("ui.seatmap.seat.yours"),
		condCurrent:     l.T("ui.seatmap.seat.current"),
		condOtherArea:   l.T("ui.seatmap.seat.other_area"),
		condUnavailable: l.T("ui.seatmap.seat.unavailable"),
		condHouse:       l.T("ui.seatmap.seat.house"),
		condBroken:      l.T("ui.seatmap.seat.broken"),
	}
	count := []any{"N", "{n}", "Max", "{max}", "Extra", "{extra}"}
	w.countOther, w.countOne = l.N("ui.seatmap.count", 2, count[:4]...), l.N("ui.seatmap.count", 1, count[:4]...)
	w.limitOver, w.limitOverOne = l.N("ui.seatmap.limit_over", 2, count...), l.N("ui.seatmap.limit_over", 1, count...)
	w.tap, w.tapChosen = l.T("ui.seatmap.tap", "Row", "{row}", "Seat", "{seat}"), l.T("ui.seatmap.tap_chosen")
	w.tapMoved = l.T("ui.seatmap.tap_moved", "From", "{from}")
	return w
}

// kindWords is a kind in a seat's name ("wheelchair space", "sofa for 2, left place").
func (w *seatWords) kindWords(k seatKind, sofaSize int) string {
	switch {
	case k == kindSofaLeft && sofaSize != 2:
		return w.l.T("ui.seatmap.kind.sofa_left", "Places", sofaSize)
	case k == kindSofaRight && sofaSize != 2:
		return w.l.T("ui.seatmap.kind.sofa_right", "Places", sofaSize)
	}
	return w.kinds[k]
}

// rowSummary names a row: "Row F, 3 of 14 free".
func (w *seatWords) rowSummary(r SeatRowView) string {
	var b strings.Builder
	for _, p := range w.row {
		switch p.slot {
		case 0:
			b.WriteString(r.Label)
		case 1:
			b.WriteString(strconv.Itoa(r.Free))
		case 2:
			b.WriteString(strconv.Itoa(r.Seats))
		default:
			b.WriteString(p.text)
		}
	}
	return b.String()
}
