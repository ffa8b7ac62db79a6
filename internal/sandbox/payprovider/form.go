package payprovider

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// fnode is one node of a request's parameters in Stripe's bracket notation:
// "line_items[0][price_data][currency]=eur" is the leaf "eur" under
// line_items → 0 → price_data → currency. A node is a leaf (a scalar), a
// hash (named children) or both when a request sends both forms (an error).
type fnode struct {
	leaf bool
	val  string
	kids map[string]*fnode
}

// parseParams turns form values into a tree. Keys with malformed brackets are
// kept under their raw name, so that they come out as unknown parameters.
// "a[]" appends to an array; "a[0]", "a[1]" are indexed elements.
func parseParams(v url.Values) *fnode {
	root := &fnode{}
	keys := make([]string, 0, len(v))
	for k := range v {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts, ok := splitKey(k)
		if !ok {
			parts = []string{k}
		}
		for _, val := range v[k] {
			root.set(parts, val)
		}
	}
	return root
}

// splitKey splits "a[b][c]" into ["a", "b", "c"].
func splitKey(k string) ([]string, bool) {
	i := strings.IndexByte(k, '[')
	if i < 0 {
		return []string{k}, k != ""
	}
	if i == 0 {
		return nil, false
	}
	parts := []string{k[:i]}
	rest := k[i:]
	for rest != "" {
		if rest[0] != '[' {
			return nil, false
		}
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			return nil, false
		}
		seg := rest[1:j]
		if strings.ContainsAny(seg, "[") {
			return nil, false
		}
		parts = append(parts, seg)
		rest = rest[j+1:]
	}
	return parts, true
}

func (n *fnode) set(parts []string, val string) {
	cur := n
	for i, p := range parts {
		if cur.kids == nil {
			cur.kids = map[string]*fnode{}
		}
		if p == "" { // "[]": the next element of an array
			if i == len(parts)-1 {
				p = strconv.Itoa(len(cur.kids))
			} else {
				// Rack's rule: reuse the last element unless it already has this key.
				last := strconv.Itoa(len(cur.kids) - 1)
				if e, ok := cur.kids[last]; ok && e.kids != nil && e.kids[parts[i+1]] == nil {
					p = last
				} else {
					p = strconv.Itoa(len(cur.kids))
				}
			}
		}
		next, ok := cur.kids[p]
		if !ok {
			next = &fnode{}
			cur.kids[p] = next
		}
		cur = next
	}
	cur.leaf, cur.val = true, val
}

// kind of a parameter in a schema.
type kind int

const (
	kScalar kind = iota // a string, integer or boolean
	kHash               // fixed keys (fields)
	kMap                // free string keys with scalar values (metadata)
	kList               // an array; elem describes the elements
)

// param describes what a request may send.
type param struct {
	kind   kind
	fields map[string]*param // kHash
	elem   *param            // kList
}

var (
	scalar = &param{kind: kScalar}
	strMap = &param{kind: kMap}
)

func hash(fields map[string]*param) *param { return &param{kind: kHash, fields: fields} }
func list(elem *param) *param              { return &param{kind: kList, elem: elem} }

// check compares the parameters with the schema: unknown names give
// parameter_unknown, a scalar where a hash or array belongs (and the other
// way round) gives Stripe's "Invalid hash" / "Invalid array". An empty value
// for a hash, map or array is Stripe's way to unset it and is accepted.
func (n *fnode) check(s *param, name string) *apiError {
	switch s.kind {
	case kScalar:
		if n.kids != nil {
			return invalidParam(name, "", "Invalid "+name+": must be a string, integer or boolean, not a hash")
		}
		return nil
	case kHash, kMap, kList:
		if n.leaf && (n.kids != nil || n.val != "") {
			what := "hash"
			if s.kind == kList {
				what = "array"
			}
			return invalidParam(name, "", "Invalid "+what)
		}
	}
	for _, k := range n.sortedKeys() {
		kid := n.kids[k]
		sub := name + "[" + k + "]"
		if name == "" {
			sub = k
		}
		switch s.kind {
		case kHash:
			f, ok := s.fields[k]
			if !ok {
				return unknownParam(sub)
			}
			if err := kid.check(f, sub); err != nil {
				return err
			}
		case kMap:
			if kid.kids != nil {
				return invalidParam(sub, "", "Invalid "+name+": values must be strings")
			}
		case kList:
			if _, err := strconv.Atoi(k); err != nil || strings.HasPrefix(k, "-") {
				return invalidParam(name, "", "Invalid array")
			}
			if err := kid.check(s.elem, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// sortedKeys orders children; array indexes numerically.
func (n *fnode) sortedKeys() []string {
	keys := make([]string, 0, len(n.kids))
	for k := range n.kids {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		ai, aerr := strconv.Atoi(a)
		bi, berr := strconv.Atoi(b)
		if aerr == nil && berr == nil {
			return ai - bi
		}
		return strings.Compare(a, b)
	})
	return keys
}

// child returns a named child or nil.
func (n *fnode) child(k string) *fnode {
	if n == nil || n.kids == nil {
		return nil
	}
	return n.kids[k]
}

// str returns a scalar child: its value and whether it was sent.
func (n *fnode) str(k string) (string, bool) {
	c := n.child(k)
	if c == nil || !c.leaf {
		return "", false
	}
	return c.val, true
}

// elems returns the elements of an array child, in index order.
func (n *fnode) elems(k string) []*fnode {
	c := n.child(k)
	if c == nil {
		return nil
	}
	var out []*fnode
	for _, i := range c.sortedKeys() {
		out = append(out, c.kids[i])
	}
	return out
}

// strMap returns a map child (metadata) as a Go map; nil if not sent.
func (n *fnode) strMap(k string) map[string]string {
	c := n.child(k)
	if c == nil || c.kids == nil {
		return nil
	}
	out := make(map[string]string, len(c.kids))
	for key, v := range c.kids {
		out[key] = v.val
	}
	return out
}

// integer reads an integer parameter. Absent: (0, false, nil).
func (n *fnode) integer(k, name string) (int64, bool, *apiError) {
	v, ok := n.str(k)
	if !ok {
		return 0, false, nil
	}
	i, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, true, &apiError{status: 400, Type: typeInvalidRequest, Code: "parameter_invalid_integer", Param: name,
			Message: "Invalid integer: " + v}
	}
	return i, true, nil
}

// expandList returns the expand[] values.
func (n *fnode) expandList() []string {
	var out []string
	for _, e := range n.elems("expand") {
		if e.leaf && e.val != "" {
			out = append(out, e.val)
		}
	}
	return out
}

func unknownParam(name string) *apiError {
	return &apiError{status: 400, Type: typeInvalidRequest, Code: "parameter_unknown", Param: name,
		Message: "Received unknown parameter: " + name}
}

func missingParam(name string) *apiError {
	return &apiError{status: 400, Type: typeInvalidRequest, Code: "parameter_missing", Param: name,
		Message: "Missing required param: " + name + "."}
}

func invalidParam(name, code, msg string) *apiError {
	return &apiError{status: 400, Type: typeInvalidRequest, Code: code, Param: name, Message: msg}
}
