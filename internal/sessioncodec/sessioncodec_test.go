package sessioncodec

import (
	"testing"
	"time"
)

func TestSessionCodecHandsOutCopies(t *testing.T) {
	c := New()
	deadline := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	b, err := c.Encode(deadline, map[string]any{"touched": int64(7), "lang": "de", "begun": true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		d, v, err := c.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if !d.Equal(deadline) || v["touched"] != int64(7) || v["lang"] != "de" || v["begun"] != true || len(v) != 3 {
			t.Fatalf("decode %d: %v %v", i, d, v)
		}
		v["lang"] = "en" // a request changing its copy
		delete(v, "touched")
	}
	if len(c.seen) != 1 {
		t.Fatalf("remembered %d sessions, want 1", len(c.seen))
	}
}

func TestSessionCodecSkipsValuesWithoutCopy(t *testing.T) {
	c := New()
	b, err := c.Encode(time.Now(), map[string]any{"list": []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Decode(b); err != nil {
		t.Fatal(err)
	}
	if len(c.seen) != 0 {
		t.Fatal("a session with a slice was remembered")
	}
	if _, _, err := c.Decode([]byte("not gob")); err == nil {
		t.Fatal("garbage decoded")
	}
}
