// Package wireshape compares the shapes of JSON documents: which fields an
// object has and which JSON type each value is, never the values themselves.
//
// It exists to keep the sandbox and the client honest against the golden
// bodies in internal/upstream/testdata/golden, which are written from what is
// known of the real ticketing API: a test computes the shape of a golden body
// and of the body under test with [Of] and reports every [Drift] that [Diff]
// finds.
//
// The rules:
//   - The JSON types are string, number, bool, object and array; integers and
//     floats are both number.
//   - null is compatible with every type: any field may be null.
//   - Objects compare field by field, recursively. A field in want and not in
//     got is [Missing]; a field in got and not in want is [Extra].
//   - An array's element shape is the union of the shapes of all its
//     elements (every field seen in any element, every type seen). An empty
//     array is compatible with any array.
//   - Two values mismatch ([TypeMismatch]) when the types seen on each side,
//     ignoring null, are not the same set.
//
// Paths name fields from the root, with "[]" for "an element of this array":
// Booking.Tickets[].SeatRowId, value[].ID, [] for the elements of a root
// array. The root itself is the empty path.
package wireshape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Kind is a set of JSON types. A single JSON value has exactly one kind; the
// element shape of an array may have several (the union over its elements).
type Kind uint8

// The JSON types. Integer and float values are both Number.
const (
	Null Kind = 1 << iota
	String
	Number
	Bool
	Object
	Array
)

var kindNames = []struct {
	k    Kind
	name string
}{
	{String, "string"},
	{Number, "number"},
	{Bool, "bool"},
	{Object, "object"},
	{Array, "array"},
	{Null, "null"},
}

// String names the types in k, joined by "|" (for example "string|number").
// The empty set is "nothing".
func (k Kind) String() string {
	if k == 0 {
		return "nothing"
	}
	var parts []string
	for _, kn := range kindNames {
		if k&kn.k != 0 {
			parts = append(parts, kn.name)
		}
	}
	return strings.Join(parts, "|")
}

// nonNull is k without Null.
func (k Kind) nonNull() Kind { return k &^ Null }

// Shape is the shape of a JSON value.
type Shape struct {
	// Kind is the set of JSON types the value was seen with.
	Kind Kind
	// Fields holds the shape of each field when Kind includes Object.
	Fields map[string]Shape
	// Elem is the union shape of the elements when Kind includes Array; nil
	// when every array seen was empty.
	Elem *Shape
}

// Of computes the shape of a JSON document. It fails when doc is not exactly
// one valid JSON value.
func Of(doc []byte) (Shape, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return Shape{}, fmt.Errorf("wireshape: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Shape{}, errors.New("wireshape: data after the first JSON value")
	}
	return shapeOf(v), nil
}

func shapeOf(v any) Shape {
	switch x := v.(type) {
	case nil:
		return Shape{Kind: Null}
	case string:
		return Shape{Kind: String}
	case json.Number, float64:
		return Shape{Kind: Number}
	case bool:
		return Shape{Kind: Bool}
	case map[string]any:
		s := Shape{Kind: Object, Fields: make(map[string]Shape, len(x))}
		for name, fv := range x {
			s.Fields[name] = shapeOf(fv)
		}
		return s
	case []any:
		s := Shape{Kind: Array}
		for _, ev := range x {
			e := shapeOf(ev)
			if s.Elem == nil {
				s.Elem = &e
			} else {
				u := union(*s.Elem, e)
				s.Elem = &u
			}
		}
		return s
	default:
		panic(fmt.Sprintf("wireshape: unexpected decoded type %T", v))
	}
}

// union is the shape that covers both a and b.
func union(a, b Shape) Shape {
	u := Shape{Kind: a.Kind | b.Kind}
	if a.Fields != nil || b.Fields != nil {
		u.Fields = make(map[string]Shape, len(a.Fields)+len(b.Fields))
		for name, fs := range a.Fields {
			u.Fields[name] = fs
		}
		for name, fs := range b.Fields {
			if prev, ok := u.Fields[name]; ok {
				u.Fields[name] = union(prev, fs)
			} else {
				u.Fields[name] = fs
			}
		}
	}
	switch {
	case a.Elem != nil && b.Elem != nil:
		e := union(*a.Elem, *b.Elem)
		u.Elem = &e
	case a.Elem != nil:
		u.Elem = a.Elem
	case b.Elem != nil:
		u.Elem = b.Elem
	}
	return u
}

// DriftKind says how two shapes differ at one path.
type DriftKind int

const (
	// Missing: the field is in want and not in got.
	Missing DriftKind = iota
	// Extra: the field is in got and not in want.
	Extra
	// TypeMismatch: the value has different JSON types on the two sides.
	TypeMismatch
)

func (k DriftKind) String() string {
	switch k {
	case Missing:
		return "missing"
	case Extra:
		return "extra"
	case TypeMismatch:
		return "type mismatch"
	}
	return fmt.Sprintf("DriftKind(%d)", int(k))
}

// Drift is one difference between two shapes.
type Drift struct {
	// Path is the field's path, such as "Booking.Tickets[].SeatRowId"; ""
	// is the root.
	Path string
	Kind DriftKind
	// Want and Got are the types on each side; the absent side of a Missing
	// or Extra drift is 0.
	Want, Got Kind
}

// String describes the drift in one line, for a test failure.
func (d Drift) String() string {
	p := d.Path
	if p == "" {
		p = "(root)"
	}
	switch d.Kind {
	case Missing:
		return fmt.Sprintf("%s: missing (want %s)", p, d.Want)
	case Extra:
		return fmt.Sprintf("%s: unexpected field (got %s)", p, d.Got)
	default:
		return fmt.Sprintf("%s: type mismatch: want %s, got %s", p, d.Want, d.Got)
	}
}

// Options tunes [DiffWith].
type Options struct {
	// Optional lists paths of fields that either side may leave out (fields
	// a document marks as optional). When both sides have the field, its
	// type and contents are still compared.
	Optional []string
	// Ignore lists paths that are not compared at all, with everything below
	// them.
	Ignore []string
}

// Diff reports how got's shape differs from want's, sorted by path. It is
// DiffWith with no options.
func Diff(want, got Shape) []Drift {
	return DiffWith(want, got, Options{})
}

// DiffWith reports how got's shape differs from want's, sorted by path,
// honouring opts.
func DiffWith(want, got Shape, opts Options) []Drift {
	c := comparer{optional: toSet(opts.Optional), ignore: toSet(opts.Ignore)}
	c.compare("", want, got)
	sort.SliceStable(c.drifts, func(i, j int) bool {
		if c.drifts[i].Path != c.drifts[j].Path {
			return c.drifts[i].Path < c.drifts[j].Path
		}
		return c.drifts[i].Kind < c.drifts[j].Kind
	})
	return c.drifts
}

// Compare computes the shapes of two documents and diffs them.
func Compare(want, got []byte, opts Options) ([]Drift, error) {
	ws, err := Of(want)
	if err != nil {
		return nil, fmt.Errorf("want: %w", err)
	}
	gs, err := Of(got)
	if err != nil {
		return nil, fmt.Errorf("got: %w", err)
	}
	return DiffWith(ws, gs, opts), nil
}

func toSet(paths []string) map[string]bool {
	m := make(map[string]bool, len(paths))
	for _, p := range paths {
		m[p] = true
	}
	return m
}

type comparer struct {
	optional, ignore map[string]bool
	drifts           []Drift
}

func (c *comparer) add(d Drift) { c.drifts = append(c.drifts, d) }

func (c *comparer) compare(path string, want, got Shape) {
	if c.ignore[path] {
		return
	}
	wk, gk := want.Kind.nonNull(), got.Kind.nonNull()
	if wk == 0 || gk == 0 {
		return // null (or never seen) on one side: compatible with anything
	}
	if wk != gk {
		c.add(Drift{Path: path, Kind: TypeMismatch, Want: want.Kind, Got: got.Kind})
		return
	}
	if wk&Object != 0 {
		c.compareFields(path, want.Fields, got.Fields)
	}
	if wk&Array != 0 && want.Elem != nil && got.Elem != nil {
		c.compare(path+"[]", *want.Elem, *got.Elem)
	}
}

func (c *comparer) compareFields(path string, want, got map[string]Shape) {
	for name, ws := range want {
		fp := join(path, name)
		gs, ok := got[name]
		if !ok {
			if !c.optional[fp] && !c.ignore[fp] {
				c.add(Drift{Path: fp, Kind: Missing, Want: ws.Kind})
			}
			continue
		}
		c.compare(fp, ws, gs)
	}
	for name, gs := range got {
		if _, ok := want[name]; ok {
			continue
		}
		fp := join(path, name)
		if !c.optional[fp] && !c.ignore[fp] {
			c.add(Drift{Path: fp, Kind: Extra, Got: gs.Kind})
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
