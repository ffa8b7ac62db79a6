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
			rd := rowDef{name: r.Name}
			if (r.Name == "") != (strings.Trim(r.Seats, ". ") == "") {
				return nil, fmt.Errorf("screen %d area %d row %d: a named row needs seats and a cross aisle needs neither", sc.Number, a.Number, ri)
			}
			label := 0
			var sofa []int
			for ci, ch := range r.Seats {
				if ch == '.' || ch == ' ' {
					if len(sofa) > 0 {
						return nil, fmt.Errorf("screen %d row %s: sofa interrupted by a gap", sc.Number, r.Name)
					}
					continue
				}
				label++
				sd := seatDef{pos: seatPos{a.Number, ri, ci}, area: ad, rowName: r.Name, label: strconv.Itoa(label)}
				switch ch {
				case 's':
				case 'W':
					sd.kind = seatSpecial
				case 'c':
					sd.kind = seatCompanion
				case 'h':
					sd.kind = seatHouse
				case 'x':
					sd.kind = seatBroken
				case 'p':
					sd.kind = seatPlaceholder
				case '[':
					sd.style = styleSofaLeft
				case '=':
					sd.style = styleSofaMiddle
				case ']':
					sd.style = styleSofaRight
				default:
					return nil, fmt.Errorf("screen %d row %s column %d: unknown seat character %q (%s)", sc.Number, r.Name, ci, ch, SeatLegend)
				}
				idx := len(def.seats)
				if sd.style != styleNormal {
					ad.hasSofas = true
					if (sd.style == styleSofaLeft) != (len(sofa) == 0) {
						return nil, fmt.Errorf("screen %d row %s column %d: sofa must start with [ and end with ]", sc.Number, r.Name, ci)
					}
					sofa = append(sofa, idx)
				}
				def.seats = append(def.seats, sd)
				def.byPos[sd.pos] = idx
				key := r.Name + sd.label
				if _, dup := def.byLabel[key]; dup {
					return nil, fmt.Errorf("screen %d: seat %s appears twice (row names must be unique per screen)", sc.Number, key)
				}
				def.byLabel[key] = idx
				rd.seats = append(rd.seats, idx)
				ad.nSeats++
				if ci+1 > ad.cols {
					ad.cols = ci + 1
				}
				if sd.style == styleSofaRight {
					for _, p := range sofa {
						def.seats[p].group = sofa
					}
					sofa = nil
				}
			}
			if len(sofa) > 0 {
				return nil, fmt.Errorf("screen %d row %s: sofa not closed with ]", sc.Number, r.Name)
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
