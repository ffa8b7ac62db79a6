package keys

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	k1, _ := Generate()
	k2, _ := Generate()
	cases := []struct {
		in      string
		n       int
		wantErr bool
	}{
		{k1, 1, false},
		{k1 + ", " + k2, 2, false},
		{"", 0, true},
		{"abc", 0, true},
		{strings.Repeat("zz", 64), 0, true},
		{k1 + ",short", 0, true},
	}
	for _, tc := range cases {
		got, err := Parse(tc.in)
		if (err != nil) != tc.wantErr || len(got) != tc.n {
			t.Errorf("Parse(%.10q…) = %d pairs, %v", tc.in, len(got), err)
		}
		if err != nil && !errors.Is(err, ErrBadKey) {
			t.Errorf("error %v is not ErrBadKey", err)
		}
	}
}

func TestLoadOrCreateKeepsTheKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "cookie-keys")
	a, created, err := LoadOrCreate(path)
	if err != nil || !created || len(a) != 1 {
		t.Fatalf("first: %v %v %d", err, created, len(a))
	}
	b, created, err := LoadOrCreate(path)
	if err != nil || created || !bytes.Equal(a[0].Hash, b[0].Hash) || !bytes.Equal(a[0].Block, b[0].Block) {
		t.Fatalf("second start got another key (created=%v, err=%v)", created, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
}
