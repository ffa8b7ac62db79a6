package words

import "testing"

func TestWholeSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want int
	}{{0, 1}, {-3, 1}, {0.2, 1}, {1, 1}, {1.01, 2}, {59.5, 60}} {
		if got := WholeSeconds(tc.in); got != tc.want {
			t.Errorf("WholeSeconds(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
