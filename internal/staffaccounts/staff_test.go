package staffaccounts_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/testenv"
)

// here and there are two clients (as the BFF names them: an address or an IPv6 /64).
const (
	here  = "198.51.100.1"
	there = "2001:db8:1:2::/64"
)

// cheap keeps the tests fast (the race detector slows argon2 down a lot).
var cheap = staffaccounts.Params{Memory: 64, Time: 1, Threads: 1}

// stores returns a store on SQLite and on PostgreSQL, with a clock the test moves.
func stores(t *testing.T) map[string]*storeAndClock {
	t.Helper()
	out := map[string]*storeAndClock{}
	for name, db := range testenv.MigratedDatabases(t) {
		sc := &storeAndClock{now: time.UnixMilli(time.Now().UnixMilli())}
		sc.Store = staffaccounts.New(db.SQL).WithParams(cheap)
		sc.SetClock(func() time.Time { return sc.now })
		sc.exec = func(q string, args ...any) {
			if _, err := db.SQL.Exec(q, args...); err != nil {
				t.Fatal(err)
			}
		}
		sc.hash = func(u string) string {
			var h string
			if err := db.SQL.QueryRow(`SELECT password_hash FROM staff_accounts WHERE username = $1`, u).Scan(&h); err != nil {
				t.Fatal(err)
			}
			return h
		}
		out[name] = sc
	}
	return out
}

type storeAndClock struct {
	*staffaccounts.Store
	now  time.Time
	exec func(string, ...any)
	hash func(string) string
}

func TestAccounts(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			invalid := []staffaccounts.NewAccount{
				{Username: "anna", Name: "Anna", Password: "short"},
				{Username: "", Name: "Anna", Password: "correct horse battery"},
				{Username: "an na", Name: "Anna", Password: "correct horse battery"},
				{Username: "anna", Name: " ", Password: "correct horse battery"},
				{Username: "anna", Name: "Anna", Password: "correct horse battery", Role: "boss"},
				{Username: "anna", Name: "Anna", Password: "correct horse battery", PIN: "1234"}, // a clerk with a PIN
				{Username: "anna", Name: "Anna", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: "12a4"},
				{Username: "anna", Name: "Anna", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: "123"},
				{Username: "anna", Name: "Anna", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: "123456789"},
			}
			for _, a := range invalid {
				if err := st.Save(ctx, a); !errors.Is(err, staffaccounts.ErrInvalid) {
					t.Errorf("Save(%+v) = %v, want ErrInvalid", a, err)
				}
			}
			if err := st.Put(ctx, "Anna", "Anna Box", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			if h := st.hash("anna"); !strings.HasPrefix(h, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("stored hash %q is not argon2id with the store's parameters", h)
			}
			cases := []struct {
				user, pass string
				ok         bool
			}{
				{"anna", "correct horse battery", true},
				{" ANNA ", "correct horse battery", true},
				{"anna", "wrong password!!", false},
				{"bob", "correct horse battery", false},
			}
			for _, tc := range cases {
				a, err := st.Authenticate(ctx, tc.user, tc.pass, here)
				if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, staffaccounts.ErrBadCredentials)) {
					t.Errorf("Authenticate(%q, %q) = %+v, %v", tc.user, tc.pass, a, err)
				}
				if tc.ok && (a.Name != "Anna Box" || a.Role != staffaccounts.Clerk || a.IsSupervisor()) {
					t.Errorf("account %+v", a)
				}
			}
			// Put replaces the password.
			if err := st.Put(ctx, "anna", "Anna Box", "a brand new password"); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatal("old password still works")
			}
			// A disabled account cannot sign in; saving it again enables it.
			if ok, err := st.Disable(ctx, "anna"); !ok || err != nil {
				t.Fatalf("Disable = %v, %v", ok, err)
			}
			if _, err := st.Authenticate(ctx, "anna", "a brand new password", here); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatalf("disabled account signs in: %v", err)
			}
			if err := st.Put(ctx, "anna", "Anna Box", "a brand new password"); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, "anna", "a brand new password", here); err != nil {
				t.Fatalf("re-saved account: %v", err)
			}
		})
	}
}

// TestOldHashesAreUpgraded: a bcrypt hash (from before argon2id) and an argon2id hash with
// other parameters keep working and are replaced at the next successful sign-in only.
func TestOldHashesAreUpgraded(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			b, err := bcrypt.GenerateFromPassword([]byte("correct horse battery"), bcrypt.MinCost)
			if err != nil {
				t.Fatal(err)
			}
			st.exec(`INSERT INTO staff_accounts (username, name, password_hash, created_at) VALUES ('old', 'Old Timer', $1, 0)`, string(b))
			if _, err := st.Authenticate(ctx, "old", "wrong password!!", here); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatalf("wrong password against bcrypt: %v", err)
			}
			if st.hash("old") != string(b) {
				t.Fatal("hash replaced after a failed sign-in")
			}
			if _, err := st.Authenticate(ctx, "old", "correct horse battery", here); err != nil {
				t.Fatalf("bcrypt password refused: %v", err)
			}
			upgraded := st.hash("old")
			if !strings.HasPrefix(upgraded, "$argon2id$v=19$m=64,t=1,p=1$") {
				t.Fatalf("bcrypt hash not upgraded: %q", upgraded)
			}
			if _, err := st.Authenticate(ctx, "old", "correct horse battery", here); err != nil || st.hash("old") != upgraded {
				t.Fatalf("upgraded hash: %v, replaced again: %v", err, st.hash("old") != upgraded)
			}
			// New parameters: the hash follows at the next sign-in.
			st.WithParams(staffaccounts.Params{Memory: 128, Time: 2, Threads: 1})
			if _, err := st.Authenticate(ctx, "old", "correct horse battery", here); err != nil {
				t.Fatal(err)
			}
			if h := st.hash("old"); !strings.HasPrefix(h, "$argon2id$v=19$m=128,t=2,p=1$") {
				t.Fatalf("hash not rehashed with the new parameters: %q", h)
			}
			st.WithParams(cheap)
		})
	}
}

// TestLockout: 5 failures from one client lock the username for that client for 15 minutes
// (even the right password is refused there) and for no other client; a success before that
// resets the count, unknown usernames lock the same way (a lock-out does not tell which names
// exist), and Unlock lifts it.
func TestLockout(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := st.Put(ctx, "anna", "Anna Box", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			fail := func(user string, n int) error {
				t.Helper()
				var err error
				for range n {
					_, err = st.Authenticate(ctx, user, "wrong password!!", here)
				}
				return err
			}
			// 4 failures, a success: the count starts over.
			if err := fail("anna", 4); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); err != nil {
				t.Fatalf("4 failures locked: %v", err)
			}
			if err := fail("anna", 4); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatal(err)
			}
			// The fifth locks, and says until when.
			err := fail("anna", 1)
			var locked *staffaccounts.LockedError
			if !errors.As(err, &locked) || !errors.Is(err, staffaccounts.ErrLocked) || !locked.Until.Equal(st.now.Add(staffaccounts.LockFor)) {
				t.Fatalf("5th failure: %v, want locked for 15 minutes", err)
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("right password while locked: %v", err)
			}
			if a, err := st.Get(ctx, "anna"); err != nil || a.LockedUntil.IsZero() {
				t.Fatalf("Get does not show the lock: %+v %v", a, err)
			}
			// Another client is not locked out: the lock is the client's own.
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", there); err != nil {
				t.Fatalf("another client while %s is locked: %v", here, err)
			}
			st.now = st.now.Add(staffaccounts.LockFor - time.Second)
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("lock ended early: %v", err)
			}
			st.now = st.now.Add(time.Second)
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); err != nil {
				t.Fatalf("after 15 minutes: %v", err)
			}
			// Unknown names lock the same way.
			if err := fail("nobody", 5); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("unknown username after 5 failures: %v", err)
			}
			// Failures spread over more than 15 minutes are forgotten.
			for range 6 {
				if err := fail("anna", 1); !errors.Is(err, staffaccounts.ErrBadCredentials) || errors.Is(err, staffaccounts.ErrLocked) {
					t.Fatalf("spread failures: %v", err)
				}
				st.now = st.now.Add(staffaccounts.LockFor + time.Second)
			}
			// Unlock lifts a lock.
			_ = fail("anna", 5)
			if err := st.Unlock(ctx, "ANNA"); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); err != nil {
				t.Fatalf("after Unlock: %v", err)
			}
		})
	}
}

// TestLockDoubles: after a lock, each further failure of the same key locks it again at once,
// for twice as long each time, up to MaxLockFor; a success, or a day after the last lock
// ended, starts afresh.
func TestLockDoubles(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := st.Put(ctx, "anna", "Anna Box", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			lockedFor := func(what string) time.Duration {
				t.Helper()
				_, err := st.Authenticate(ctx, "anna", "wrong password!!", here)
				var locked *staffaccounts.LockedError
				if !errors.As(err, &locked) {
					t.Fatalf("%s: %v, want locked", what, err)
				}
				return locked.Until.Sub(st.now)
			}
			for range staffaccounts.MaxFailures - 1 {
				_, _ = st.Authenticate(ctx, "anna", "wrong password!!", here)
			}
			want := staffaccounts.LockFor
			for i := range 9 {
				if got := lockedFor(fmt.Sprintf("lock %d", i+1)); got != want {
					t.Fatalf("lock %d lasts %v, want %v", i+1, got, want)
				}
				st.now = st.now.Add(want)
				want = min(2*want, staffaccounts.MaxLockFor)
			}
			// A success forgets the strikes.
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); err != nil {
				t.Fatal(err)
			}
			for i := range staffaccounts.MaxFailures - 1 {
				if _, err := st.Authenticate(ctx, "anna", "wrong password!!", here); !errors.Is(err, staffaccounts.ErrBadCredentials) {
					t.Fatalf("failure %d after a success: %v", i+1, err)
				}
			}
			if got := lockedFor("first lock after a success"); got != staffaccounts.LockFor {
				t.Fatalf("first lock after a success lasts %v", got)
			}
			// So does a day without a lock.
			st.now = st.now.Add(staffaccounts.LockFor + staffaccounts.StrikeMemory + time.Second)
			if _, err := st.Authenticate(ctx, "anna", "wrong password!!", here); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatalf("a day after the last lock: %v", err)
			}
		})
	}
}

// TestParallelGuessesStopAtTheLimit: 20 parallel wrong passwords lock the account; at most 5
// of them were compared.
func TestParallelGuessesStopAtTheLimit(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := st.Put(ctx, "anna", "Anna Box", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			wrong := 0
			var wg sync.WaitGroup
			for range 20 {
				wg.Go(func() {
					_, err := st.Authenticate(ctx, "anna", "wrong password!!", here)
					mu.Lock()
					defer mu.Unlock()
					if errors.Is(err, staffaccounts.ErrBadCredentials) {
						wrong++
					} else if !errors.Is(err, staffaccounts.ErrLocked) {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			if wrong > staffaccounts.MaxFailures-1 {
				t.Fatalf("%d guesses answered 'wrong password', want at most %d", wrong, staffaccounts.MaxFailures-1)
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("not locked after 20 parallel guesses: %v", err)
			}
		})
	}
}

// TestApprove: only an enabled supervisor with the right PIN approves; wrong PINs count against
// the PIN, from every client, and never against the supervisor's sign-in; a clerk is
// ErrNotSupervisor, and a clerk's or an unknown name locks at approval like a supervisor's.
func TestApprove(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: "246810"}))
			must(st.Save(ctx, staffaccounts.NewAccount{Username: "nopin", Name: "No Pin", Password: "correct horse battery", Role: staffaccounts.Supervisor}))
			must(st.Put(ctx, "anna", "Anna Box", "correct horse battery"))
			a, err := st.Approve(ctx, "Sue", "246810")
			if err != nil || !a.IsSupervisor() || a.Name != "Sue Visor" || !a.HasPIN {
				t.Fatalf("Approve = %+v, %v", a, err)
			}
			cases := []struct {
				user, pin string
				want      error
			}{
				{"sue", "111111", staffaccounts.ErrBadCredentials},
				{"sue", "correct horse battery", staffaccounts.ErrBadCredentials}, // the password is not the PIN
				{"nopin", "1234", staffaccounts.ErrBadCredentials},
				{"anna", "1234", staffaccounts.ErrNotSupervisor},
				{"nobody", "1234", staffaccounts.ErrBadCredentials},
			}
			for _, tc := range cases {
				if _, err := st.Approve(ctx, tc.user, tc.pin); !errors.Is(err, tc.want) {
					t.Errorf("Approve(%q, %q) = %v, want %v", tc.user, tc.pin, err, tc.want)
				}
			}
			// Re-saving without a PIN keeps it; as a clerk it is dropped.
			must(st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Supervisor}))
			if _, err := st.Approve(ctx, "sue", "246810"); err != nil {
				t.Fatalf("PIN lost when re-saved without one: %v", err)
			}
			// Wrong PINs lock the PIN, not the sign-in; wrong passwords do not count against the PIN.
			for range staffaccounts.MaxFailures - 1 {
				_, _ = st.Authenticate(ctx, "sue", "wrong password!!", here)
			}
			for i := range staffaccounts.MaxFailures - 1 {
				if _, err := st.Approve(ctx, "sue", "000000"); !errors.Is(err, staffaccounts.ErrBadCredentials) {
					t.Fatalf("wrong PIN %d: %v", i+1, err)
				}
			}
			if _, err := st.Approve(ctx, "sue", "000000"); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("5th wrong PIN: %v", err)
			}
			if _, err := st.Approve(ctx, "sue", "246810"); !errors.Is(err, staffaccounts.ErrLocked) {
				t.Fatalf("right PIN while the PIN is locked: %v", err)
			}
			for range 20 {
				_, _ = st.Approve(ctx, "sue", "000000")
			}
			if _, err := st.Authenticate(ctx, "sue", "correct horse battery", here); err != nil {
				t.Fatalf("sign-in after 20 wrong PINs: %v", err)
			}
			if a, _ := st.Get(ctx, "sue"); a.LockedUntil.IsZero() {
				t.Fatal("Get does not show the PIN's lock")
			}
			must(st.Unlock(ctx, "sue"))
			if _, err := st.Approve(ctx, "sue", "246810"); err != nil {
				t.Fatalf("after Unlock: %v", err)
			}
			// A clerk's name at approval: refused, counted like any name (the lock does not tell
			// clerks from supervisors or unknown names), and the clerk's sign-in is untouched.
			must(st.Unlock(ctx, "anna")) // forgets the attempt of the table above
			for i := range staffaccounts.MaxFailures - 1 {
				if _, err := st.Approve(ctx, "anna", "123456"); !errors.Is(err, staffaccounts.ErrNotSupervisor) {
					t.Fatalf("clerk's name, attempt %d: %v", i+1, err)
				}
			}
			for _, user := range []string{"anna", "nobody"} {
				for range staffaccounts.MaxFailures - 1 {
					_, _ = st.Approve(ctx, user, "123456")
				}
				if _, err := st.Approve(ctx, user, "123456"); !errors.Is(err, staffaccounts.ErrLocked) {
					t.Fatalf("%s at approval after many attempts: %v", user, err)
				}
			}
			if _, err := st.Authenticate(ctx, "anna", "correct horse battery", here); err != nil {
				t.Fatalf("clerk locked by approval attempts: %v", err)
			}
			if a, _ := st.Get(ctx, "anna"); !a.LockedUntil.IsZero() {
				t.Fatal("the accounts list shows a clerk locked by approval attempts on the name")
			}
			// Disabled supervisors cannot approve.
			if _, err := st.Disable(ctx, "sue"); err != nil {
				t.Fatal(err)
			}
			if _, err := st.Approve(ctx, "sue", "246810"); !errors.Is(err, staffaccounts.ErrBadCredentials) {
				t.Fatalf("disabled supervisor approves: %v", err)
			}
			must(st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Clerk}))
			must(st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Supervisor}))
			if a, _ := st.Get(ctx, "sue"); a.HasPIN {
				t.Fatal("a PIN survived the demotion to clerk")
			}
		})
	}
}

// TestEndSessionsAndList: EndSessions raises the epoch; List shows role and lock state.
func TestEndSessionsAndList(t *testing.T) {
	ctx := context.Background()
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			if err := st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: "246810"}); err != nil {
				t.Fatal(err)
			}
			if err := st.Put(ctx, "anna", "Anna Box", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			a, err := st.Authenticate(ctx, "anna", "correct horse battery", here)
			if err != nil {
				t.Fatal(err)
			}
			epoch, err := st.EndSessions(ctx, "anna")
			if err != nil || epoch != a.SessionEpoch+1 {
				t.Fatalf("EndSessions = %d, %v (was %d)", epoch, err, a.SessionEpoch)
			}
			if _, err := st.EndSessions(ctx, "nobody"); !errors.Is(err, staffaccounts.ErrNotFound) {
				t.Fatalf("EndSessions(nobody) = %v", err)
			}
			for range staffaccounts.MaxFailures {
				_, _ = st.Authenticate(ctx, "anna", "wrong password!!", here)
			}
			list, err := st.List(ctx)
			if err != nil || len(list) != 2 {
				t.Fatalf("List = %+v, %v", list, err)
			}
			if list[0].Username != "anna" || list[0].LockedUntil.IsZero() || list[0].SessionEpoch != epoch || list[0].Role != staffaccounts.Clerk {
				t.Errorf("anna: %+v", list[0])
			}
			if list[1].Username != "sue" || !list[1].IsSupervisor() || !list[1].HasPIN || !list[1].LockedUntil.IsZero() {
				t.Errorf("sue: %+v", list[1])
			}
			if ok, err := st.HasPassword(ctx, "sue", "correct horse battery"); !ok || err != nil {
				t.Errorf("HasPassword = %v, %v", ok, err)
			}
			if ok, _ := st.HasPassword(ctx, "sue", "something else"); ok {
				t.Error("HasPassword accepts a wrong password")
			}
		})
	}
}

// TestPINLength: a new PIN has 6-8 digits; a 4-digit PIN made earlier (here a bcrypt hash, as
// earlier versions stored it, of unknown length) still approves, and is reported short until
// replaced; a PIN's length is learnt at its first approval when it was not recorded.
func TestPINLength(t *testing.T) {
	ctx := context.Background()
	old := func(secret string) string {
		b, err := bcrypt.GenerateFromPassword([]byte(secret), bcrypt.MinCost)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	oldPassword, oldShortPIN, oldLongPIN := old("correct horse battery"), old("2468"), old("135790")
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				pin string
				ok  bool
			}{
				{"1234", false}, {"12345", false}, {"123456", true}, {"1234567", true}, {"12345678", true}, {"123456789", false}, {"12a456", false},
			} {
				err := st.Save(ctx, staffaccounts.NewAccount{Username: "sue", Name: "Sue Visor", Password: "correct horse battery", Role: staffaccounts.Supervisor, PIN: tc.pin})
				if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, staffaccounts.ErrInvalid)) {
					t.Errorf("new PIN %q: %v", tc.pin, err)
					continue
				}
				a, err := st.Get(ctx, "sue")
				if tc.ok && (err != nil || a.PINLength != len(tc.pin) || a.ShortPIN()) {
					t.Errorf("after new PIN %q: %+v, %v", tc.pin, a, err)
				}
			}
			for _, user := range []string{"shorty", "longer"} {
				pin := map[string]string{"shorty": oldShortPIN, "longer": oldLongPIN}[user]
				st.exec(`INSERT INTO staff_accounts (username, name, password_hash, created_at, role, pin_hash) VALUES ($1, $1, $2, 0, 'supervisor', $3)`,
					user, oldPassword, pin)
				if a, err := st.Get(ctx, user); err != nil || !a.HasPIN || a.PINLength != 0 || !a.ShortPIN() {
					t.Fatalf("%s before approving: %+v, %v (want an unknown length, reported short)", user, a, err)
				}
			}
			for _, tc := range []struct {
				user, pin string
				short     bool
			}{
				{"shorty", "2468", true},
				{"longer", "135790", false},
			} {
				if a, err := st.Approve(ctx, tc.user, tc.pin); err != nil || a.PINLength != len(tc.pin) {
					t.Fatalf("old PIN of %s: %+v, %v", tc.user, a, err)
				}
				if a, _ := st.Get(ctx, tc.user); a.PINLength != len(tc.pin) || a.ShortPIN() != tc.short {
					t.Errorf("%s after approving: %+v, want short=%v", tc.user, a, tc.short)
				}
			}
		})
	}
}

// TestSaveWithGivenHashes: an account saved with hashes made earlier (the demo accounts) stores
// them as they are, without hashing, and signs in with the secrets they were made from; a
// given hash that is not a readable argon2id string is refused.
func TestSaveWithGivenHashes(t *testing.T) {
	ctx := context.Background()
	bcryptHash, err := bcrypt.GenerateFromPassword([]byte("correct horse battery"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	for name, st := range stores(t) {
		t.Run(name, func(t *testing.T) {
			// A hash as this store makes it.
			if err := st.Put(ctx, "source", "Source", "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			pwHash := st.hash("source")
			cases := []struct {
				name    string
				account staffaccounts.NewAccount
				wantErr error
			}{
				{"clerk with a given password hash", staffaccounts.NewAccount{Username: "given", Name: "Given", PasswordHash: pwHash}, nil},
				{"supervisor with given password and PIN hashes", staffaccounts.NewAccount{Username: "givensup", Name: "Given Sup", Role: staffaccounts.Supervisor,
					PasswordHash: pwHash, PIN: "246810", PINHash: pwHash}, nil},
				{"not a hash", staffaccounts.NewAccount{Username: "bad1", Name: "Bad", PasswordHash: "correct horse battery"}, staffaccounts.ErrInvalid},
				{"bcrypt is not taken as given", staffaccounts.NewAccount{Username: "bad2", Name: "Bad", PasswordHash: string(bcryptHash)}, staffaccounts.ErrInvalid},
				{"clerk with a PIN hash", staffaccounts.NewAccount{Username: "bad3", Name: "Bad", PasswordHash: pwHash, PINHash: pwHash}, staffaccounts.ErrInvalid},
			}
			for _, tc := range cases {
				err := st.Save(ctx, tc.account)
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("%s: Save = %v, want %v", tc.name, err, tc.wantErr)
				}
				if tc.wantErr != nil {
					if _, err := st.Get(ctx, tc.account.Username); !errors.Is(err, staffaccounts.ErrNotFound) {
						t.Errorf("%s: refused account stored anyway (%v)", tc.name, err)
					}
					continue
				}
				if got := st.hash(tc.account.Username); got != pwHash {
					t.Errorf("%s: stored %q, want the given hash %q", tc.name, got, pwHash)
				}
				if _, err := st.Authenticate(ctx, tc.account.Username, "correct horse battery", here); err != nil {
					t.Errorf("%s: sign-in with the secret the hash was made from: %v", tc.name, err)
				}
			}
			// The PIN hash given was the password's: the password approves, the PIN does not.
			if _, err := st.Approve(ctx, "givensup", "correct horse battery"); err != nil {
				t.Errorf("approve with the secret of the given PIN hash: %v", err)
			}
		})
	}
}
