package audit

import (
	"bytes"
	"encoding/csv"
	"testing"
	"time"
)

// TestWriteCSVQuotesFormulas: a cell a spreadsheet would run as a formula (its first character,
// or its first after spaces, is = + - @, or it starts with a tab or carriage return) is written
// with a leading quote; other cells are written as they are.
func TestWriteCSVQuotesFormulas(t *testing.T) {
	for _, tc := range []struct {
		in, want string
	}{
		{"=1+1", "'=1+1"},
		{" =1+1", "' =1+1"},
		{"   @SUM(A1)", "'   @SUM(A1)"},
		{"\t=1", "'\t=1"},
		{"\r=1", "'\r=1"},
		{"\n=1", "'\n=1"},
		{"\u00a0=1", "'\u00a0=1"},
		{"+1", "'+1"},
		{"-1", "'-1"},
		{"@x", "'@x"},
		{"\t", "'\t"},
		{"anna", "anna"},
		{" anna", " anna"},
		{"a=1", "a=1"},
		{"", ""},
		{"   ", "   "},
	} {
		var buf bytes.Buffer
		e := Entry{At: time.Unix(0, 0), Actor: tc.in, Device: tc.in, Action: ActionSignIn, CinemaID: tc.in, Reason: tc.in, Detail: tc.in}
		if err := WriteCSV(&buf, []Entry{e}, time.UTC); err != nil {
			t.Fatal(err)
		}
		rows, err := csv.NewReader(&buf).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("%q: %d rows, %v", tc.in, len(rows), err)
		}
		for _, col := range []int{1, 2, 4, 8, 9} { // actor, device, cinema, reason, detail
			if got := rows[1][col]; got != tc.want {
				t.Errorf("%q in %s: %q, want %q", tc.in, rows[0][col], got, tc.want)
			}
		}
	}
}
