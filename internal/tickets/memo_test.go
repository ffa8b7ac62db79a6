package tickets

import (
	"fmt"
	"testing"
)

// TestSVGIsRemembered: a code seen again is not encoded again, and the memo stays bounded.
func TestSVGIsRemembered(t *testing.T) {
	const payload = "TKT1 booking=MEMO line=1"
	first, err := SVG(payload, "Row F, seat 14", 160)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := svgMemo.get(svgKey{payload, "Row F, seat 14", 160}); !ok || got != first {
		t.Fatal("the rendered code was not remembered")
	}
	again, _ := SVG(payload, "Row F, seat 14", 160)
	if again != first {
		t.Fatal("the remembered code differs from the first rendering")
	}
	other, _ := SVG(payload, "Row F, seat 15", 160) // another label is another rendering
	if other == first {
		t.Fatal("a different label gave the same SVG")
	}
	for i := range svgMemoSize + 10 {
		if _, err := SVG(fmt.Sprintf("TKT1 booking=FILL line=%d", i), "", 80); err != nil {
			t.Fatal(err)
		}
	}
	svgMemo.mu.Lock()
	n := len(svgMemo.m)
	svgMemo.mu.Unlock()
	if n > svgMemoSize {
		t.Fatalf("memo holds %d codes, at most %d", n, svgMemoSize)
	}
}

func BenchmarkSVGSeenAgain(b *testing.B) {
	if _, err := SVG("TKT1 booking=BENCH line=1", "", 160); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := SVG("TKT1 booking=BENCH line=1", "", 160); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSVGFirstRendering is the cost of a code not seen before (encoding included).
func BenchmarkSVGFirstRendering(b *testing.B) {
	for b.Loop() {
		if _, err := renderSVG("TKT1 booking=BENCH line=1", "", 160); err != nil {
			b.Fatal(err)
		}
	}
}
