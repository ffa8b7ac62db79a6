package components

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/cinemabff/cinemabff/internal/cinema"
	"github.com/cinemabff/cinemabff/internal/i18n"
)

// The seat map: one component for every seat choice (purchase, edit, swap). Build the view
// model with BuildSeatMap and render it with SeatMap inside the caller's <form>; the chosen
// seats come back as form values of SeatMapOptions.FieldName, each one "area-row-col" (read
// them with ParseSeatValue or SeatValues). The markup follows the seat map section of
// static/css/app.css. See docs/seatmap.md.

// SeatMapOptions says whose seats are whose and what may be chosen.
type SeatMapOptions struct {
	// ID prefixes the element ids of the map (unique per page); default "seatmap".
	ID string
	// FieldName is the form field of the seat checkboxes; default "seat".
	FieldName string
	// Max is how many seats may be chosen; it drives the live count (static/js/app.js).
	// 0 means one per seat of the plan (no limit shown).
	Max int
	// Yours are the seats of the booking or order being changed.
	Yours []cinema.SeatPosition
	// YoursSelectable keeps the person's own seats as ticked, untickable controls (an edit
	// keeps or gives back seats); false shows them as fixed ("yours", not a choice).
	YoursSelectable bool
	// YoursCurrent draws the person's own (fixed) seats as the seats they move from (a seat
	// swap): a look and a name of their own ("your current seat"), apart from the new seats
	// being chosen, with a line of the key.
	YoursCurrent bool
	// Chosen are the seats to show ticked (a form shown again keeps its choices).
	Chosen []cinema.SeatPosition
	// AreaCategories limits the choice to seats of these area category codes; empty means any.
	AreaCategories []string
	// Kiosk words the hints for touch screens (sizes come from the body class).
	Kiosk bool
	// Words given here are shown as they are: write them in the request's language. Words
	// left empty are the map's own, written in the page's language when it is rendered.
	//
	// Label is the accessible name of the map's scroll region; default "Seat map".
	Label string
	// CountTemplate is the live count text with {n} and {max}; default "{n} of {max} seats chosen".
	CountTemplate string
	// CountTemplateOne is CountTemplate for a maximum of one ("{n} of {max} seat chosen").
	CountTemplateOne string
	// MaxFrom, when set, is a CSS selector of the element whose ticked checkboxes with a
	// data-seats count say how many seats may be chosen (the swap's "which tickets move");
	// the script counts against that instead of Max. CountNone is the count text with {n}
	// while none of them is ticked (CountNoneOne for one seat chosen).
	MaxFrom      string
	CountNone    string
	CountNoneOne string
	// AsOf, when set, is the time the seat states were read ("20:31:05"); the map says so.
	AsOf string
	// NoList leaves out the switch to the list view (the same seats laid out row by row).
	NoList bool
	// Prices are what a seat costs, by area category code, written for the page ("€12.50",
	// "€8.00–€12.50"): a tap on a seat answers with its row, number and this price.
	Prices map[string]string
}

// Seat states: each but free (the default look of .seat) has a CSS class "seat-<state>"; each has a
// shape and a word in the legend.
const (
	SeatStateFree        = "free"
	SeatStateTaken       = "taken"
	SeatStateYours       = "yours"
	SeatStateCurrent     = "current"
	SeatStateSelected    = "selected"
	SeatStateUnavailable = "unavailable"
)

// SeatMapView is the view model of the seat map. It holds what the map shows, not its words:
// those are written when it is rendered, in the language of the render's context (i18n).
type SeatMapView struct {
	ID               string
	FieldName        string
	Max              int
	Label            string // "" is the map's own name, "Seat map"
	CountText        string // the count as rendered, when the caller words it; "" counts Chosen (JS keeps it up to date)
	CountTemplate    string // "" are the map's own
	CountTemplateOne string
	MaxFrom          string // see SeatMapOptions.MaxFrom
	CountNone        string
	CountNoneOne     string
	Chosen           int    // seats ticked as rendered
	LimitShown       bool   // more seats are ticked than may be chosen
	Kiosk            bool   // the hint is for touch screens
	AsOf             string // when the free/taken states were read; "" says nothing
	Areas            []SeatAreaView
	Legend           []LegendEntry
	ListView         bool // offer the list view: the same checkboxes, row by row (CSS)
	Columns          int  // the widest area's column count plus the two row labels (the map's width in seats)

	cells *[]SeatCellView // every row's cells, one pooled slab (Release)
}

// cellSlabs keeps the cells of maps already rendered: a 412-seat map's cells are about half
// of what its page allocates, and a rush renders the same maps over and over.
var cellSlabs = sync.Pool{New: func() any { return new([]SeatCellView) }}

// Release hands the map's cells back for the next map. Call it once the page that shows the
// map is rendered (its bytes written); neither v nor a copy of it may be used afterwards.
// A map never released is simply left to the garbage collector.
func (v *SeatMapView) Release() {
	if v.cells == nil {
		return
	}
	clear(*v.cells) // no strings of this plan are kept alive by the pool
	cellSlabs.Put(v.cells)
	v.cells, v.Areas = nil, nil
}

// SeatAreaView is one area (block) of seats: a fieldset.
type SeatAreaView struct {
	Number     int
	Name       string // "Stalls"
	Category   string // "Standard"
	Legend     string // "Stalls · Standard"
	Allowed    bool   // its category may be chosen (else the legend says it is not for these tickets)
	Selectable bool   // some seat here may be chosen
	Price      string // what a seat here costs, as written for the page ("€12.50"), or ""
	TestID     string
	Rows       []SeatRowView
}

// SeatRowView is one row of an area, padded to the area's column count. A cross aisle has
// Aisle set and no cells.
type SeatRowView struct {
	ID     string // id of the row label that names the group
	Label  string // "F"
	Free   int    // free seats, for the summary "Row F, 3 of 14 free"
	Seats  int
	Aisle  bool
	TestID string
	Cells  []SeatCellView
}

// SeatCellView is a seat or a gap (aisle) at one column.
type SeatCellView struct {
	Gap  bool
	Seat SeatView
}

// SeatView is one place of the map. It keeps the parts of its name rather than the name
// itself: seatCells writes them straight into the page, in the page's language (seatWords),
// so building and rendering a seat allocates nothing (Name assembles the string for tests
// and callers).
type SeatView struct {
	Pos      cinema.SeatPosition
	Row      string // row label, "F"
	Label    string // "12", shown in the list view
	Category string // area category as the cinema names it ("Premium"), or ""
	State    string // one of the SeatState constants
	Class    string // "seat seat-wheelchair"; free is the default state and has no class
	Checked  bool
	Disabled bool
	// Fixed marks one of the person's own seats that is not a choice here: drawn (and named,
	// as an image) but with no control, so it is neither submitted nor counted.
	Fixed bool

	kind     seatKind
	sofaSize int    // places of its sofa (a sofa kind)
	category string // Category in lower case, for languages that write it so in a name
	cond     seatCondition
}

// seatCondition is what a seat's name says about whether it can be had.
type seatCondition uint8

const (
	condFree        seatCondition = iota // free
	condTaken                            // taken
	condYours                            // your seat
	condCurrent                          // your current seat (moving away from it)
	condOtherArea                        // not available for these tickets (another seating area)
	condUnavailable                      // not available
	condHouse                            // not available (kept by the cinema)
	condBroken                           // not available (out of use)
	numConditions
)

// Name is the full accessible name in l's language: "Row F, seat 12, premium, free".
func (s SeatView) Name(l *i18n.Localizer) string {
	var b strings.Builder
	s.writeName(wordsFor(l), func(p string) { b.WriteString(p) })
	return b.String()
}

// writeName hands the parts of the name to put in order (no allocation for the kinds the
// words hold ready).
func (s SeatView) writeName(w *seatWords, put func(string)) {
	for _, p := range w.name {
		switch p.slot {
		case 0:
			put(s.Row)
		case 1:
			put(s.Label)
		default:
			put(p.text)
		}
	}
	if s.kind != kindPlain {
		put(w.sep)
		put(w.kindWords(s.kind, s.sofaSize))
	}
	if s.Category != "" {
		put(w.sep)
		if w.lowerCategory {
			put(s.category)
		} else {
			put(s.Category)
		}
	}
	put(w.sep)
	put(w.conditions[s.cond])
}

// LegendEntry is one line of the key.
type LegendEntry struct {
	Key   string   // state or kind: free, selected, taken, yours, wheelchair, companion, sofa, unavailable
	Class []string // classes of the sample seat(s); two for the sofa pair
	Text  string   // catalog id of its words
}

// SeatValue is the form value of a seat position: "area-row-col".
func SeatValue(p cinema.SeatPosition) string {
	var b [32]byte
	return string(appendSeatValue(b[:0], p))
}

// appendSeatValue appends the form value of p to b (seatCells writes it without a string).
func appendSeatValue(b []byte, p cinema.SeatPosition) []byte {
	b = strconv.AppendInt(b, int64(p.AreaNumber), 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, int64(p.RowIndex), 10)
	b = append(b, '-')
	return strconv.AppendInt(b, int64(p.ColumnIndex), 10)
}

// ParseSeatValue reads a form value written by SeatValue ("area-row-col", three decimal
// numbers from 0 to 9999). It reports false for anything else.
func ParseSeatValue(v string) (cinema.SeatPosition, bool) {
	parts := strings.Split(v, "-")
	if len(parts) != 3 {
		return cinema.SeatPosition{}, false
	}
	var n [3]int
	for i, p := range parts {
		if p == "" || len(p) > 4 || strings.TrimLeft(p, "0123456789") != "" {
			return cinema.SeatPosition{}, false
		}
		n[i], _ = strconv.Atoi(p)
	}
	return cinema.SeatPosition{AreaNumber: n[0], RowIndex: n[1], ColumnIndex: n[2]}, true
}

// SeatValues reads the submitted values of a seat field: empty values are skipped and repeats counted once, in
// the order given. It reports the first value that is not a seat.
func SeatValues(values []string) ([]cinema.SeatPosition, error) {
	var out []cinema.SeatPosition
	seen := map[cinema.SeatPosition]bool{}
	for _, v := range values {
		if v == "" {
			continue
		}
		p, ok := ParseSeatValue(v)
		if !ok {
			return nil, fmt.Errorf("not a seat: %q", v)
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}

// Seat kinds with a look of their own; the class of a seat of kind k has "seat-" + seatKinds[k].
type seatKind uint8

const (
	kindPlain seatKind = iota
	kindWheelchair
	kindCompanion
	kindSofaLeft
	kindSofaRight
	numKinds
)

// seatKinds are the class suffixes of the kinds.
var seatKinds = [numKinds]string{"", "wheelchair", "companion", "sofa-left", "sofa-right"}

// kindOf says which kind s is: the one place that tells the kinds apart.
func kindOf(s cinema.Seat) seatKind {
	switch {
	case s.Kind == cinema.SeatKindWheelchair:
		return kindWheelchair
	case s.Kind == cinema.SeatKindCompanion:
		return kindCompanion
	case len(s.SofaGroup) > 1 && sofaLeft(s):
		return kindSofaLeft
	case len(s.SofaGroup) > 1:
		return kindSofaRight
	}
	return kindPlain
}

// legendKey is the key of the kind's line in the legend: both places of a sofa share one.
func legendKey(k seatKind) string {
	if k == kindSofaLeft || k == kindSofaRight {
		return "sofa"
	}
	return seatKinds[k]
}

func sofaLeft(s cinema.Seat) bool {
	for _, p := range s.SofaGroup {
		if p.ColumnIndex < s.Position.ColumnIndex {
			return false
		}
	}
	return true
}

// areaColumns is how many cells each row of the area has: its widest seat's column, or its
// column count.
func areaColumns(a cinema.Area) int {
	maxCol := a.ColumnCount - 1
	for _, r := range a.Rows {
		for _, s := range r.Seats {
			maxCol = max(maxCol, s.Position.ColumnIndex)
		}
	}
	return maxCol + 1
}

// cellSlab returns a pooled slab of n cells.
func cellSlab(n int) *[]SeatCellView {
	slab := cellSlabs.Get().(*[]SeatCellView)
	if cap(*slab) < n {
		*slab = make([]SeatCellView, n)
	}
	*slab = (*slab)[:n]
	return slab
}

// BuildSeatMap turns a seat plan into the map's view model. The caller may Release it once
// the page is rendered.
func BuildSeatMap(plan cinema.SeatPlan, opt SeatMapOptions) SeatMapView {
	if opt.ID == "" {
		opt.ID = "seatmap"
	}
	if opt.FieldName == "" {
		opt.FieldName = "seat"
	}
	v := SeatMapView{ID: opt.ID, FieldName: opt.FieldName, Max: opt.Max, Label: opt.Label, CountTemplate: opt.CountTemplate,
		CountTemplateOne: opt.CountTemplateOne, MaxFrom: opt.MaxFrom, CountNone: opt.CountNone, CountNoneOne: opt.CountNoneOne,
		Kiosk: opt.Kiosk, AsOf: opt.AsOf}
	// Built here, not by a constructor, so that its maps stay on the stack (pages build a map
	// per request).
	bld := seatMapBuild{opt: opt, yours: positionSet(opt.Yours), chosen: positionSet(opt.Chosen),
		allowed: map[string]bool{}, categories: map[string]string{},
		// Yours and chosen are one state to the eye: one line of the key says both.
		present: map[string]bool{SeatStateFree: true, SeatStateSelected: true, SeatStateTaken: true}}
	for _, c := range opt.AreaCategories {
		bld.allowed[c] = true
	}
	for _, c := range plan.AreaCategories {
		bld.categories[c.Code] = c.Description
	}
	// Each area's cells per row, and room for every cell of every row with seats, in one slab.
	cols, n := planColumns(plan)
	v.cells = cellSlab(n)
	free := *v.cells // cut row by row
	for ai, a := range plan.Areas {
		v.Columns = max(v.Columns, cols[ai]+2)
		var av SeatAreaView
		av, free = bld.area(a, cols[ai], free)
		v.Areas = append(v.Areas, av)
	}
	bld.finish(&v)
	return v
}

// seatMapBuild is what building a seat map keeps across its areas: the options and what they
// name, the states and kinds seen (for the legend), and the seats counted.
type seatMapBuild struct {
	opt           SeatMapOptions
	yours, chosen map[cinema.SeatPosition]bool
	allowed       map[string]bool   // area categories that may be chosen; empty: all
	categories    map[string]string // area category code → its description
	present       map[string]bool   // legend keys the map shows
	nChecked      int
	nSeats        int
}

// planColumns is the cells per row of each area, and the cells of every row with seats
// together.
func planColumns(plan cinema.SeatPlan) (cols []int, n int) {
	cols = make([]int, len(plan.Areas))
	for i, a := range plan.Areas {
		cols[i] = areaColumns(a)
		for _, r := range a.Rows {
			if len(r.Seats) > 0 {
				n += cols[i]
			}
		}
	}
	return cols, n
}

// area is the view of one area, its rows ncols cells wide, cut from the cells free; it returns
// the cells left.
func (bld *seatMapBuild) area(a cinema.Area, ncols int, free []SeatCellView) (SeatAreaView, []SeatCellView) {
	cat := bld.categories[a.AreaCategoryCode]
	in := seatArea{category: cat, catLower: strings.ToLower(cat), allowed: len(bld.allowed) == 0 || bld.allowed[a.AreaCategoryCode]}
	av := SeatAreaView{Number: a.Number, Name: a.Description, Category: cat, Allowed: in.allowed, TestID: "seatmap-area-" + strconv.Itoa(a.Number),
		Price: bld.opt.Prices[a.AreaCategoryCode]}
	av.Legend = a.Description
	if cat != "" && !strings.EqualFold(cat, a.Description) {
		av.Legend += " · " + cat
	}
	for ri, r := range a.Rows {
		rowID := bld.opt.ID + "-row-" + strconv.Itoa(a.Number) + "-" + strconv.Itoa(ri)
		if len(r.Seats) == 0 {
			av.Rows = append(av.Rows, SeatRowView{ID: rowID, Aisle: true, TestID: "seat-aisle"})
			continue
		}
		rv := SeatRowView{ID: rowID, Label: r.Label, Seats: len(r.Seats), TestID: "seat-row-" + strconv.Itoa(a.Number) + "-" + r.Label}
		rv.Cells, free = free[:ncols:ncols], free[ncols:]
		for i := range rv.Cells {
			rv.Cells[i] = SeatCellView{Gap: true}
		}
		for _, s := range r.Seats {
			if bld.seat(&rv, s, in) {
				av.Selectable = true
			}
		}
		av.Rows = append(av.Rows, rv)
	}
	return av, free
}

// seatArea is what a seat's view takes from its area: the category's description (also in
// lower case, once per area) and whether the area may be chosen.
type seatArea struct {
	category, catLower string
	allowed            bool
}

// seat puts seat s in its cell of row rv, counting it and noting its state and kind for the
// legend; it reports whether the seat can be chosen.
func (bld *seatMapBuild) seat(rv *SeatRowView, s cinema.Seat, in seatArea) bool {
	bld.nSeats++
	if s.Availability == cinema.SeatFree {
		rv.Free++
	}
	kind := kindOf(s)
	sv, ok := buildSeat(s, kind, in.category, in.catLower, in.allowed, bld.yours[s.Position], bld.chosen[s.Position], bld.opt.YoursSelectable)
	if sv.State == SeatStateYours && bld.opt.YoursCurrent && sv.Fixed {
		sv.State, sv.cond, sv.Class = SeatStateCurrent, condCurrent, seatClasses[SeatStateCurrent][kind]
	}
	if sv.State != SeatStateFree && sv.State != SeatStateSelected && sv.State != SeatStateYours {
		bld.present[sv.State] = true
	}
	if kind != kindPlain {
		bld.present[legendKey(kind)] = true
	}
	if sv.Checked {
		bld.nChecked++
	}
	if c := s.Position.ColumnIndex; c >= 0 && c < len(rv.Cells) {
		rv.Cells[c] = SeatCellView{Seat: sv}
	}
	return ok
}

// finish sets what the whole map knows once every seat is in: the maximum (every seat when
// none is given), how many are chosen, the legend, and whether the list is offered.
func (bld *seatMapBuild) finish(v *SeatMapView) {
	if v.Max <= 0 {
		v.Max = bld.nSeats
	}
	v.Chosen, v.LimitShown = bld.nChecked, bld.nChecked > v.Max
	v.Legend = legend(bld.present)
	if bld.opt.YoursCurrent {
		for i := range v.Legend {
			if v.Legend[i].Key == SeatStateSelected {
				v.Legend[i].Text = msg("ui.seatmap.legend.new")
			}
		}
	}
	v.ListView = !bld.opt.NoList && bld.nSeats > 0
}

// countTemplates are the live count's templates, for a maximum of more than one and of one:
// the caller's, else the map's own in w's language.
func (v SeatMapView) countTemplates(w *seatWords) (other, one string) {
	other, one = v.CountTemplate, v.CountTemplateOne
	if other == "" {
		other = w.countOther
		if one == "" {
			one = w.countOne
		}
	}
	return other, one
}

// CountText is the count line for n chosen seats of v.Max in l's language (static/js/app.js
// writes the same from the templates the map carries).
func CountText(l *i18n.Localizer, v SeatMapView, n int) string {
	other, one := v.countTemplates(wordsFor(l))
	t := other
	if v.Max == 1 && one != "" {
		t = one
	}
	return strings.NewReplacer("{n}", strconv.Itoa(n), "{max}", strconv.Itoa(v.Max)).Replace(t)
}

// countText is the count line as rendered: the caller's, else v.Chosen of v.Max.
func (v SeatMapView) countText(ctx context.Context) string {
	if v.CountText != "" {
		return v.CountText
	}
	return CountText(i18n.FromContext(ctx), v, v.Chosen)
}

// LimitText is the hint, in l's language, once n seats of max are chosen (static/js/app.js
// writes the same from the templates the map carries): at the maximum, how to choose another;
// past it, how many to untick.
func LimitText(l *i18n.Localizer, n, max int) string {
	if n > max {
		return l.N("ui.seatmap.limit_over", max, "N", n, "Max", max, "Extra", n-max)
	}
	return l.N("ui.seatmap.limit_full", max, "Max", max)
}

// buildSeat makes one seat of the given kind; ok reports whether the person may choose it.
// category is the area category as the cinema names it, catLower the same in lower case.
func buildSeat(s cinema.Seat, kind seatKind, category, catLower string, areaAllowed, mine, chosen, yoursSelectable bool) (SeatView, bool) {
	sv := SeatView{Pos: s.Position, Row: s.RowLabel, Label: s.Label, kind: kind, sofaSize: len(s.SofaGroup), Category: category, category: catLower}
	var state string
	var cond seatCondition
	ok := false
	switch {
	case mine:
		state, cond = SeatStateYours, condYours
		ok = yoursSelectable
		sv.Checked = yoursSelectable && chosen
		sv.Fixed = !yoursSelectable
	case s.Availability == cinema.SeatFree && areaAllowed:
		state, cond, ok = SeatStateFree, condFree, true
		if chosen {
			state, sv.Checked = SeatStateSelected, true
		}
	case s.Availability == cinema.SeatFree:
		// Free, but not for these tickets: drawn as not available, and the name says why.
		state, cond = SeatStateUnavailable, condOtherArea
	case s.Availability == cinema.SeatTaken, s.Availability == cinema.SeatHeld:
		state, cond = SeatStateTaken, condTaken
	default:
		state, cond = SeatStateUnavailable, condUnavailable
		switch s.Kind {
		case cinema.SeatKindHouse:
			cond = condHouse
		case cinema.SeatKindBroken:
			cond = condBroken
		}
	}
	sv.State, sv.cond = state, cond
	sv.Disabled = !ok
	sv.Class = seatClasses[state][kind]
	return sv, ok
}

// seatClasses is every class attribute a seat can have, by state and kind, so no seat builds
// its own: "seat", then "seat-<state>" unless free (the default look), then "seat-<kind>".
var seatClasses = func() map[string]*[numKinds]string {
	t := map[string]*[numKinds]string{}
	for _, state := range []string{SeatStateFree, SeatStateTaken, SeatStateYours, SeatStateCurrent, SeatStateSelected, SeatStateUnavailable} {
		t[state] = new([numKinds]string)
		for k, kind := range seatKinds {
			c := "seat"
			if state != SeatStateFree {
				c += " seat-" + state
			}
			if kind != "" {
				c += " seat-" + kind
			}
			t[state][k] = c
		}
	}
	return t
}()

// allLegend is the key in display order; the texts are catalog ids (msg), written when the
// map is rendered. The person's own seats look like the seats they choose (one look for
// "yours"), so the "selected" line names both.
var allLegend = []LegendEntry{
	{Key: SeatStateFree, Class: []string{"seat"}, Text: msg("ui.seatmap.legend.free")},
	{Key: SeatStateCurrent, Class: []string{"seat seat-current"}, Text: msg("ui.seatmap.legend.current")},
	{Key: SeatStateSelected, Class: []string{"seat seat-selected"}, Text: msg("ui.seatmap.legend.selected")},
	{Key: SeatStateTaken, Class: []string{"seat seat-taken"}, Text: msg("ui.seatmap.legend.taken")},
	{Key: "wheelchair", Class: []string{"seat seat-wheelchair"}, Text: msg("ui.seatmap.legend.wheelchair")},
	{Key: "companion", Class: []string{"seat seat-companion"}, Text: msg("ui.seatmap.legend.companion")},
	{Key: "sofa", Class: []string{"seat seat-sofa-left", "seat seat-sofa-right"}, Text: msg("ui.seatmap.legend.sofa")},
	{Key: SeatStateUnavailable, Class: []string{"seat seat-unavailable"}, Text: msg("ui.seatmap.legend.unavailable")},
}

func legend(present map[string]bool) []LegendEntry {
	var out []LegendEntry
	for _, e := range allLegend {
		if present[e.Key] {
			out = append(out, e)
		}
	}
	return out
}

func positionSet(ps []cinema.SeatPosition) map[cinema.SeatPosition]bool {
	m := make(map[cinema.SeatPosition]bool, len(ps))
	for _, p := range ps {
		m[p] = true
	}
	return m
}

// label is the accessible name of the map's scroll region: the caller's, else "Seat map".
func (v SeatMapView) label(l *i18n.Localizer) string {
	if v.Label != "" {
		return v.Label
	}
	return l.T("ui.seatmap.label")
}

// hint says in one line how to choose a seat (a tap or a click); the kiosk's also says how to
// zoom. The keyboard's way is hintKeys, shown to keyboard and mouse users only (CSS).
func (v SeatMapView) hint(l *i18n.Localizer) string {
	if v.Kiosk {
		return l.T("ui.seatmap.hint_touch")
	}
	return l.T("ui.seatmap.hint")
}

// legend is the area's fieldset legend: "Stalls · Standard", and when its seats are not for
// these tickets, that.
func (a SeatAreaView) legend(l *i18n.Localizer) string {
	if a.Allowed {
		return a.Legend
	}
	return a.Legend + " " + l.T("ui.seatmap.area_not_allowed")
}
