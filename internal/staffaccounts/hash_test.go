package staffaccounts

import (
	"strings"
	"testing"
)

func TestHashes(t *testing.T) {
	p := Params{Memory: 64, Time: 1, Threads: 1}
	h, err := hashSecret("correct horse battery", p)
	if err != nil {
		t.Fatal(err)
	}
	if ok, stale, err := verifySecret(h, "correct horse battery", p); !ok || stale || err != nil {
		t.Fatalf("own hash: ok=%v stale=%v err=%v", ok, stale, err)
	}
	if ok, _, _ := verifySecret(h, "correct horse batterY", p); ok {
		t.Fatal("a wrong password verifies")
	}
	if _, stale, _ := verifySecret(h, "correct horse battery", DefaultParams); !stale {
		t.Fatal("a hash with other parameters is not stale")
	}
	bad := []string{"", "plain", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", strings.Replace(h, "v=19", "v=16", 1),
		strings.Replace(h, "m=64", "m=1", 1), h[:strings.LastIndex(h, "$")] + "$!!", "$2a$10$short"}
	for _, b := range bad {
		if ok, _, _ := verifySecret(b, "correct horse battery", p); ok {
			t.Errorf("malformed hash %q verifies", b)
		}
	}
	for _, tc := range []struct {
		p  Params
		ok bool
	}{{DefaultParams, true}, {Params{Memory: 8, Time: 1, Threads: 1}, true}, {Params{Memory: 8, Time: 1, Threads: 2}, false}, {Params{Memory: 64, Time: 0, Threads: 1}, false}} {
		if err := tc.p.Validate(); (err == nil) != tc.ok {
			t.Errorf("Validate(%+v) = %v", tc.p, err)
		}
	}
}
