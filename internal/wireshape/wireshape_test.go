package wireshape

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func mustOf(t *testing.T, doc string) Shape {
	t.Helper()
	s, err := Of([]byte(doc))
	if err != nil {
		t.Fatalf("Of(%s): %v", doc, err)
	}
	return s
}

func driftStrings(ds []Drift) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.String()
	}
	return out
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name      string
		want, got string
		opts      Options
		drifts    []string
	}{
		{
			name:   "identical shapes, different values",
			want:   `{"Result":0,"ErrorDescription":"a","Order":{"Id":"1","Ok":true}}`,
			got:    `{"Result":4,"ErrorDescription":"b","Order":{"Id":"9","Ok":false}}`,
			drifts: nil,
		},
		{
			name:   "integer and float are both number",
			want:   `{"PriceInCents":1250}`,
			got:    `{"PriceInCents":12.5e2}`,
			drifts: nil,
		},
		{
			name:   "missing field",
			want:   `{"VistaBookingNumber":100002,"VistaTransNumber":700123}`,
			got:    `{"VistaBookingNumber":100002}`,
			drifts: []string{"VistaTransNumber: missing (want number)"},
		},
		{
			name:   "extra field",
			want:   `{"VistaBookingNumber":100002}`,
			got:    `{"VistaBookingNumber":100002,"CoreBookingNumber":100002}`,
			drifts: []string{"CoreBookingNumber: unexpected field (got number)"},
		},
		{
			name:   "type change string to number",
			want:   `{"value":[{"RunTime":"87"}]}`,
			got:    `{"value":[{"RunTime":87}]}`,
			drifts: []string{"value[].RunTime: type mismatch: want string, got number"},
		},
		{
			name:   "type change bool to string",
			want:   `{"IsPaid":true}`,
			got:    `{"IsPaid":"true"}`,
			drifts: []string{"IsPaid: type mismatch: want bool, got string"},
		},
		{
			name:   "object where an array was",
			want:   `{"Tickets":[]}`,
			got:    `{"Tickets":{}}`,
			drifts: []string{"Tickets: type mismatch: want array, got object"},
		},
		{
			name:   "root type",
			want:   `{}`,
			got:    `[]`,
			drifts: []string{"(root): type mismatch: want object, got array"},
		},
		{
			name: "nested arrays: field missing deep down",
			want: `{"Booking":{"Tickets":[{"SeatRowId":"F","SeatNumber":"12"}]}}`,
			got:  `{"Booking":{"Tickets":[{"SeatNumber":"12"}]}}`,
			drifts: []string{
				"Booking.Tickets[].SeatRowId: missing (want string)",
			},
		},
		{
			name: "arrays of arrays",
			want: `{"Rows":[[{"Id":"1"}],[{"Id":"2"}]]}`,
			got:  `{"Rows":[[{"Id":1}]]}`,
			drifts: []string{
				"Rows[][].Id: type mismatch: want string, got number",
			},
		},
		{
			name: "array elements compare by their union",
			// Each side has the two fields, spread over different elements.
			want:   `{"Seats":[{"Id":"1"},{"SeatsInGroup":[{"ColumnIndex":0}]}]}`,
			got:    `{"Seats":[{"Id":"2","SeatsInGroup":null},{"Id":"3","SeatsInGroup":[{"ColumnIndex":4}]}]}`,
			drifts: nil,
		},
		{
			name:   "union of element types must match",
			want:   `{"a":["x",1]}`,
			got:    `{"a":["y"]}`,
			drifts: []string{"a[]: type mismatch: want string|number, got string"},
		},
		{
			name:   "empty array is compatible with any array",
			want:   `{"Concessions":[{"ItemId":"C001","Quantity":1}],"Payments":[]}`,
			got:    `{"Concessions":[],"Payments":[{"PaymentId":"1"}]}`,
			drifts: nil,
		},
		{
			name:   "null in want is compatible with any type",
			want:   `{"ErrorDescription":null,"PackageContent":null,"SeatsInGroup":null}`,
			got:    `{"ErrorDescription":"boom","PackageContent":{"Tickets":[]},"SeatsInGroup":[{"RowIndex":1}]}`,
			drifts: nil,
		},
		{
			name:   "null in got is compatible with any type",
			want:   `{"Order":{"Id":"1"},"Tickets":[{"Id":"1"}],"Name":"x"}`,
			got:    `{"Order":null,"Tickets":null,"Name":null}`,
			drifts: nil,
		},
		{
			name:   "null elements do not change an array's shape",
			want:   `{"a":[{"x":1},null]}`,
			got:    `{"a":[null,{"x":"1"}]}`,
			drifts: []string{"a[].x: type mismatch: want number, got string"},
		},
		{
			name:   "null does not excuse a missing field",
			want:   `{"Booking":null}`,
			got:    `{}`,
			drifts: []string{"Booking: missing (want null)"},
		},
		{
			name: "several drifts come sorted by path",
			want: `{"b":1,"a":{"y":"s","x":true},"c":[{"z":1}]}`,
			got:  `{"a":{"x":1,"w":null},"c":[{"z":1,"q":"new"}],"d":false}`,
			drifts: []string{
				"a.w: unexpected field (got null)",
				"a.x: type mismatch: want bool, got number",
				"a.y: missing (want string)",
				"b: missing (want number)",
				"c[].q: unexpected field (got string)",
				"d: unexpected field (got bool)",
			},
		},
		{
			name: "optional paths may be absent on either side",
			want: `{"Order":{"Id":"1","AmountToPayInCents":2700,"Tickets":[{"Id":"1"}]}}`,
			got:  `{"Order":{"Id":"1","Tickets":[{"Id":"1","BookingStatus":1}]}}`,
			opts: Options{Optional: []string{"Order.AmountToPayInCents", "Order.Tickets[].BookingStatus"}},
		},
		{
			name:   "optional paths are still type-checked when present",
			want:   `{"Order":{"AmountToPayInCents":2700}}`,
			got:    `{"Order":{"AmountToPayInCents":"2700"}}`,
			opts:   Options{Optional: []string{"Order.AmountToPayInCents"}},
			drifts: []string{"Order.AmountToPayInCents: type mismatch: want number, got string"},
		},
		{
			name:   "ignored paths are skipped with everything below them",
			want:   `{"Order":{"AppliedPayments":[{"Kind":"GiftCard"}]},"Result":0}`,
			got:    `{"Order":{"AppliedPayments":{"Kind":1}},"Result":"0"}`,
			opts:   Options{Ignore: []string{"Order.AppliedPayments"}},
			drifts: []string{"Result: type mismatch: want number, got string"},
		},
		{
			name:   "ignored path missing on one side",
			want:   `{"Order":{"AppliedPayments":[]}}`,
			got:    `{"Order":{}}`,
			opts:   Options{Ignore: []string{"Order.AppliedPayments"}},
			drifts: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := driftStrings(DiffWith(mustOf(t, tc.want), mustOf(t, tc.got), tc.opts))
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.drifts) {
				t.Errorf("drifts:\n got  %q\n want %q", got, tc.drifts)
			}
		})
	}
}

func TestDiffDirection(t *testing.T) {
	want := mustOf(t, `{"a":1}`)
	got := mustOf(t, `{"b":1}`)
	ds := Diff(want, got)
	if len(ds) != 2 {
		t.Fatalf("got %d drifts, want 2: %v", len(ds), ds)
	}
	if ds[0] != (Drift{Path: "a", Kind: Missing, Want: Number}) {
		t.Errorf("first drift = %#v", ds[0])
	}
	if ds[1] != (Drift{Path: "b", Kind: Extra, Got: Number}) {
		t.Errorf("second drift = %#v", ds[1])
	}
}

func TestOf(t *testing.T) {
	for _, bad := range []string{``, `   `, `{`, `{"a":1}{"b":2}`, `{"a":1} x`, `[1,]`, `nope`} {
		if _, err := Of([]byte(bad)); err == nil {
			t.Errorf("Of(%q) succeeded, want an error", bad)
		}
	}
	for doc, kind := range map[string]Kind{
		`null`: Null, `"s"`: String, `-1.5e3`: Number, `true`: Bool, `{}`: Object, ` [ ] `: Array,
	} {
		s, err := Of([]byte(doc))
		if err != nil {
			t.Errorf("Of(%q): %v", doc, err)
			continue
		}
		if s.Kind != kind {
			t.Errorf("Of(%q).Kind = %v, want %v", doc, s.Kind, kind)
		}
	}
	s := mustOf(t, `{"a":[1,"x",null,{"b":true},{"c":[]}]}`)
	e := s.Fields["a"].Elem
	if e == nil || e.Kind != Number|String|Null|Object {
		t.Fatalf("element shape = %+v", e)
	}
	if len(e.Fields) != 2 || e.Fields["b"].Kind != Bool || e.Fields["c"].Kind != Array || e.Fields["c"].Elem != nil {
		t.Errorf("element fields = %+v", e.Fields)
	}
	if got := e.Kind.String(); got != "string|number|object|null" {
		t.Errorf("Kind.String() = %q", got)
	}
}

func TestCompare(t *testing.T) {
	ds, err := Compare([]byte(`{"a":"1"}`), []byte(`{"a":1}`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 1 || ds[0].Kind != TypeMismatch || ds[0].Path != "a" {
		t.Errorf("Compare = %v", ds)
	}
	if _, err := Compare([]byte(`{`), []byte(`{}`), Options{}); err == nil {
		t.Error("Compare with a broken want succeeded")
	}
	if _, err := Compare([]byte(`{}`), []byte(`{`), Options{}); err == nil {
		t.Error("Compare with a broken got succeeded")
	}
}

// goldenDir holds the request and reply bodies written from the notes on the
// real wire (see its README.md).
const goldenDir = "../upstream/testdata/golden"

// operations is the wire profile's path table: every operation and whether
// it is a POST.
var operations = []struct {
	name string
	post bool
}{
	{"ListCinemas", false},
	{"ListFilms", false},
	{"ListSessions", false},
	{"GetSeatPlan", false},
	{"GetTicketTypes", false},
	{"AddTickets", true},
	{"RemoveTickets", true},
	{"SetSelectedSeats", true},
	{"GetOrder", true},
	{"ResetOrderExpiry", true},
	{"CancelOrder", true},
	{"CompleteOrder", true},
	{"ApplyGiftCard", true},
	{"ApplyLoyaltyPointsPayment", true},
	{"ExternalPaymentStarting", true},
	{"GetOrderDetails", false},
	{"GetSingleBooking", true},
	{"EditBooking", true},
	{"CompleteEditBooking", true},
	{"SwapSeats", true},
	{"MarkBookingCollected", true},
}

// withoutBody are POST operations that send no body (wire profile: "Edit
// Booking: POST …/edit, no body"; contract 4.1 "Request body: none shown").
var withoutBody = map[string]bool{"EditBooking": true}

// requiredVariants are the variant bodies the wire profile's cases call for.
var requiredVariants = []string{
	"AddTickets.reply.editstate.json",
	"GetSingleBooking.reply.notfound.json",
	"GetSingleBooking.reply.twopayments.json",
	"SetSelectedSeats.reply.seattaken.json",
	"CompleteOrder.reply.reservation.json",
	"GetOrderDetails.reply.completed.json",
	"GetOrderDetails.reply.pending.json",
	"ListCinemas.reply.windowszone.json",
	"GetSeatPlan.reply.sofa.json",
	"EditBooking.reply.refused.json",
}

var goldenName = regexp.MustCompile(`^([A-Za-z]+)\.(request|reply)(\.[a-z0-9]+)?\.json$`)

func goldenFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no golden bodies in %s", goldenDir)
	}
	sort.Strings(files)
	return files
}

func TestGoldenFilesHaveAShape(t *testing.T) {
	known := map[string]bool{}
	for _, op := range operations {
		known[op.name] = true
	}
	readme, err := os.ReadFile(filepath.Join(goldenDir, "README.md"))
	if err != nil {
		t.Fatalf("golden README: %v", err)
	}
	for _, f := range goldenFiles(t) {
		base := filepath.Base(f)
		m := goldenName.FindStringSubmatch(base)
		if m == nil {
			t.Errorf("%s: name is not <Operation>.request|reply[.variant].json", base)
		} else if !known[m[1]] {
			t.Errorf("%s: unknown operation %q", base, m[1])
		}
		doc, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Of(doc)
		if err != nil {
			t.Errorf("%s: %v", base, err)
			continue
		}
		if s.Kind != Object {
			t.Errorf("%s: root is %v, want an object", base, s.Kind)
		}
		// The golden bodies speak the real wire: no neutral "Core…" names.
		for _, p := range fieldPaths("", s) {
			if strings.HasPrefix(lastSegment(p), "Core") {
				t.Errorf("%s: %s uses the contract's neutral name; the real wire says Vista…", base, p)
			}
		}
		if !strings.Contains(string(readme), "`"+base+"`") {
			t.Errorf("%s is not described in the golden README.md", base)
		}
	}
}

func TestGoldenFilesCoverEveryOperation(t *testing.T) {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(goldenDir, name))
		return err == nil
	}
	for _, op := range operations {
		if !exists(op.name + ".reply.json") {
			t.Errorf("%s: no reply golden %s.reply.json", op.name, op.name)
		}
		req := exists(op.name + ".request.json")
		switch {
		case op.post && !withoutBody[op.name] && !req:
			t.Errorf("%s is a POST: no request golden %s.request.json", op.name, op.name)
		case (!op.post || withoutBody[op.name]) && req:
			t.Errorf("%s sends no body, yet %s.request.json exists", op.name, op.name)
		}
	}
	for _, v := range requiredVariants {
		if !exists(v) {
			t.Errorf("missing variant golden %s", v)
		}
	}
}

// fieldPaths lists the path of every field in s.
func fieldPaths(path string, s Shape) []string {
	var out []string
	for name, fs := range s.Fields {
		p := join(path, name)
		out = append(out, p)
		out = append(out, fieldPaths(p, fs)...)
	}
	if s.Elem != nil {
		out = append(out, fieldPaths(path+"[]", *s.Elem)...)
	}
	return out
}

func lastSegment(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[i+1:]
	}
	return p
}
