package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// Seat status numbers (wire-profile "Enumerations").
const (
	seatEmpty       = 0
	seatSold        = 1
	seatHouse       = 2
	seatSpecial     = 3
	seatReserved    = 4
	seatBroken      = 5
	seatPlaceholder = 6
	seatCompanion   = 7
)

// Seat styles.
const (
	styleNormal     = 0
	styleSofaLeft   = 1
	styleSofaMiddle = 2
	styleSofaRight  = 3
)

// seatPos addresses a seat the way the wire does.
type seatPos struct{ area, row, col int }

// seatDef is one place of a compiled screen.
type seatDef struct {
	pos     seatPos
	area    *areaDef
	rowName string
	label   string
	kind    int   // OriginalStatus: empty, house, special, broken, placeholder or companion
	style   int   // SeatStyle
	group   []int // indexes of all places of the sofa, nil when not a sofa
}

// sellable reports whether the place can be sold at all.
func (d *seatDef) sellable() bool {
	return d.kind == seatEmpty || d.kind == seatSpecial || d.kind == seatCompanion
}

type rowDef struct {
	name  string
	seats []int
}

type areaDef struct {
	number   int
	category *AreaCategory
	desc     string
	rows     []rowDef
	cols     int
	top      int
	nSeats   int
	hasSofas bool
}

// screenDef is a Screen compiled into indexable places.
type screenDef struct {
	number  int
	name    string
	areas   []*areaDef
	seats   []seatDef
	byPos   map[seatPos]int
	byLabel map[string]int // row name + seat label, e.g. "F12"
	// template is the seat-plan answer cut at each Status; built on first
	// use under Server.mu.
	template *planTemplate
}

// compileScreen turns a screen drawn as rows of characters into its indexed places, area by
// area, each area's rows numbered on from those above it (top).
func compileScreen(sc Screen, cats map[string]*AreaCategory) (*screenDef, error) {
	def := &screenDef{number: sc.Number, name: sc.Name, byPos: map[seatPos]int{}, byLabel: map[string]int{}}
	top := 0
	for _, a := range sc.Areas {
		cat, ok := cats[a.AreaCategoryCode]
		if !ok {
			return nil, fmt.Errorf("screen %d area %d: unknown area category %q", sc.Number, a.Number, a.AreaCategoryCode)
		}
		ad := &areaDef{number: a.Number, category: cat, desc: a.Description, top: top}
		for ri, r := range a.Rows {
			rd, err := def.compileRow(ad, ri, r)
			if err != nil {
				return nil, err
			}
			ad.rows = append(ad.rows, rd)
		}
		top += len(a.Rows)
		def.areas = append(def.areas, ad)
	}
	if len(def.seats) == 0 {
		return nil, fmt.Errorf("screen %d has no seats", sc.Number)
	}
	return def, nil
}

// seatShape is what a character of Row.Seats makes: the place's status and style.
type seatShape struct{ kind, style int }

// seatChars reads the characters of SeatLegend that are places.
var seatChars = map[rune]seatShape{
	's': {seatEmpty, styleNormal},
	'W': {seatSpecial, styleNormal},
	'c': {seatCompanion, styleNormal},
	'h': {seatHouse, styleNormal},
	'x': {seatBroken, styleNormal},
	'p': {seatPlaceholder, styleNormal},
	'[': {seatEmpty, styleSofaLeft},
	'=': {seatEmpty, styleSofaMiddle},
	']': {seatEmpty, styleSofaRight},
}

// compileRow adds the places of row ri of area ad; a sofa runs from [ to ] with no gap, and
// each of its places knows all of them.
func (sc *screenDef) compileRow(ad *areaDef, ri int, r Row) (rowDef, error) {
	rd := rowDef{name: r.Name}
	if (r.Name == "") != (strings.Trim(r.Seats, ". ") == "") {
		return rd, fmt.Errorf("screen %d area %d row %d: a named row needs seats and a cross aisle needs neither", sc.number, ad.number, ri)
	}
	label := 0
	var sofa []int
	for ci, ch := range r.Seats {
		if ch == '.' || ch == ' ' {
			if len(sofa) > 0 {
				return rd, fmt.Errorf("screen %d row %s: sofa interrupted by a gap", sc.number, r.Name)
			}
			continue
		}
		label++
		shape, ok := seatChars[ch]
		if !ok {
			return rd, fmt.Errorf("screen %d row %s column %d: unknown seat character %q (%s)", sc.number, r.Name, ci, ch, SeatLegend)
		}
		sd := seatDef{pos: seatPos{ad.number, ri, ci}, area: ad, rowName: r.Name, label: strconv.Itoa(label), kind: shape.kind, style: shape.style}
		idx := len(sc.seats)
		if sd.style != styleNormal {
			ad.hasSofas = true
			if (sd.style == styleSofaLeft) != (len(sofa) == 0) {
				return rd, fmt.Errorf("screen %d row %s column %d: sofa must start with [ and end with ]", sc.number, r.Name, ci)
			}
			sofa = append(sofa, idx)
		}
		if err := sc.addSeat(ad, sd); err != nil {
			return rd, err
		}
		rd.seats = append(rd.seats, idx)
		if sd.style == styleSofaRight {
			for _, p := range sofa {
				sc.seats[p].group = sofa
			}
			sofa = nil
		}
	}
	if len(sofa) > 0 {
		return rd, fmt.Errorf("screen %d row %s: sofa not closed with ]", sc.number, r.Name)
	}
	return rd, nil
}

// addSeat adds a place of area ad, found by its position and by its row name and label
// (which must be unique in the screen).
func (sc *screenDef) addSeat(ad *areaDef, sd seatDef) error {
	idx := len(sc.seats)
	sc.seats = append(sc.seats, sd)
	sc.byPos[sd.pos] = idx
	key := sd.rowName + sd.label
	if _, dup := sc.byLabel[key]; dup {
		return fmt.Errorf("screen %d: seat %s appears twice (row names must be unique per screen)", sc.number, key)
	}
	sc.byLabel[key] = idx
	ad.nSeats++
	if col := sd.pos.col; col+1 > ad.cols {
		ad.cols = col + 1
	}
	return nil
}
