package staffaccounts

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
	"golang.org/x/crypto/bcrypt"
)

// Params are the argon2id cost parameters for new password and PIN hashes. A stored hash
// carries its own parameters, so changing them never locks anyone out: an older hash is
// replaced at its owner's next successful sign-in.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes
	Threads uint8
}

// DefaultParams are 64 MiB, 3 passes, 2 lanes (about 100 ms on a current server core).
var DefaultParams = Params{Memory: 64 * 1024, Time: 3, Threads: 2}

// Validate reports whether p can be used: argon2 needs at least 8 KiB per lane.
func (p Params) Validate() error {
	if p.Time < 1 || p.Threads < 1 || p.Memory < 8*uint32(p.Threads) || p.Memory > 4<<20 {
		return fmt.Errorf("%w: argon2 memory %d KiB (at least 8 per thread, at most 4 GiB), time %d (at least 1), threads %d (at least 1)",
			ErrInvalid, p.Memory, p.Time, p.Threads)
	}
	return nil
}

func (p Params) orDefault() Params {
	if p == (Params{}) {
		return DefaultParams
	}
	return p
}

const (
	saltLen = 16
	keyLen  = 32
)

var b64 = base64.RawStdEncoding

// errBadHash: a stored hash this package cannot read (never shown; treated as a wrong password).
var errBadHash = errors.New("staff: unreadable password hash")

// hashSecret returns the PHC string of secret: $argon2id$v=19$m=65536,t=3,p=2$<salt>$<key>.
func hashSecret(secret string, p Params) (string, error) {
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("staff: salt: %w", err)
	}
	key := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, keyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// verifySecret checks secret against an encoded hash: argon2id (PHC string) or bcrypt (from
// before argon2id). stale says the hash should be replaced by one with the current parameters.
func verifySecret(encoded, secret string, current Params) (ok, stale bool, err error) {
	if strings.HasPrefix(encoded, "$2a$") || strings.HasPrefix(encoded, "$2b$") || strings.HasPrefix(encoded, "$2y$") {
		err := bcrypt.CompareHashAndPassword([]byte(encoded), []byte(secret))
		if errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
			return false, true, nil
		}
		if err != nil {
			return false, true, fmt.Errorf("%w: %w", errBadHash, err)
		}
		return true, true, nil
	}
	p, salt, key, err := decodeArgon2(encoded)
	if err != nil {
		return false, false, err
	}
	got := argon2.IDKey([]byte(secret), salt, p.Time, p.Memory, p.Threads, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, p != current || len(salt) != saltLen || len(key) != keyLen, nil
}

func decodeArgon2(encoded string) (Params, []byte, []byte, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return Params{}, nil, nil, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return Params{}, nil, nil, fmt.Errorf("%w: version %q", errBadHash, parts[2])
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil || p.Validate() != nil {
		return Params{}, nil, nil, fmt.Errorf("%w: parameters %q", errBadHash, parts[3])
	}
	salt, err := b64.DecodeString(parts[4])
	if err != nil || len(salt) < 8 {
		return Params{}, nil, nil, fmt.Errorf("%w: salt", errBadHash)
	}
	key, err := b64.DecodeString(parts[5])
	if err != nil || len(key) < 16 {
		return Params{}, nil, nil, fmt.Errorf("%w: key", errBadHash)
	}
	return p, salt, key, nil
}
