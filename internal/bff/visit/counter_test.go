package visit

import "testing"

// TestParseCashAmount: the amount given is read as a clerk types it, in either language's
// decimal mark; anything else is refused rather than guessed.
func TestParseCashAmount(t *testing.T) {
	for _, tc := range []struct {
		in    string
		cents int64
		ok    bool
	}{
		{"20", 2000, true},
		{"20.5", 2050, true},
		{"20,50", 2050, true},
		{" 7.05 ", 705, true},
		{"1.000,00", 100000, true},
		{"1,000.00", 100000, true},
		{"1.000", 100000, true}, // three digits after the mark: a thousands separator
		{",50", 50, true},
		{"", 0, false},
		{"twenty", 0, false},
		{"20€", 0, false},
		{"-5", 0, false},
		{"12345678901", 0, false},
	} {
		cents, ok := ParseCashAmount(tc.in)
		if cents != tc.cents || ok != tc.ok {
			t.Errorf("ParseCashAmount(%q) = %d, %v; want %d, %v", tc.in, cents, ok, tc.cents, tc.ok)
		}
	}
}
