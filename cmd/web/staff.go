package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/term"

	"github.com/cinemabff/cinemabff/internal/admission"
	"github.com/cinemabff/cinemabff/internal/bff/words"
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/staffaccounts"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// runStaff is `web staff -username U -name N [-role clerk|supervisor] [-pin | -pin-from-env]`
// (and any of the server's flags, e.g. -database-url): it creates or replaces a box-office
// account and ends the account's current sign-ins. The password comes from
// CINEMA_STAFF_PASSWORD or the first line of standard input, never from a flag (flags show in
// process lists). A supervisor's approval PIN (6-8 digits) comes from CINEMA_STAFF_PIN with
// -pin-from-env, or from the next line of standard input with -pin; without either a
// supervisor keeps the PIN they have.
func runStaff(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	var username, name, role string
	var askPIN, pinFromEnv bool
	cfg, err := parseConfigWith(args, getenv, stdout, func(fs *flag.FlagSet) {
		fs.StringVar(&username, "username", "", "staff: account name (required)")
		fs.StringVar(&name, "name", "", "staff: the person's name (required)")
		fs.StringVar(&role, "role", string(staffaccounts.Clerk), "staff: clerk or supervisor")
		fs.BoolVar(&askPIN, "pin", false, "staff: read a supervisor's approval PIN (6-8 digits) from the next line of standard input")
		fs.BoolVar(&pinFromEnv, "pin-from-env", false, "staff: take a supervisor's approval PIN from $CINEMA_STAFF_PIN")
	})
	if err != nil {
		return err
	}
	if username == "" || name == "" {
		return errors.New("staff: -username and -name are required")
	}
	r := staffaccounts.Role(role)
	if !r.Valid() {
		return fmt.Errorf("staff: -role %q: want clerk or supervisor", role)
	}
	if (askPIN || pinFromEnv) && r != staffaccounts.Supervisor {
		return errors.New("staff: only supervisors have a PIN (add -role supervisor)")
	}
	in := bufio.NewReader(stdin)
	password := getenv("CINEMA_STAFF_PASSWORD")
	if password == "" {
		if password, err = readSecret(in, stdin, stdout, "Password: "); err != nil {
			return errors.New("staff: give the password in CINEMA_STAFF_PASSWORD or on standard input")
		}
	}
	pin := ""
	switch {
	case pinFromEnv:
		if pin = getenv("CINEMA_STAFF_PIN"); pin == "" {
			return errors.New("staff: -pin-from-env: CINEMA_STAFF_PIN is empty")
		}
	case askPIN:
		if pin, err = readSecret(in, stdin, stdout, "Approval PIN (6-8 digits): "); err != nil {
			return errors.New("staff: -pin: give the PIN on the next line of standard input")
		}
	}
	params, _ := cfg.passwordHashing() // checked by parseConfigWith
	db, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	st := staffaccounts.New(db.SQL).WithParams(params)
	if err := st.Save(ctx, staffaccounts.NewAccount{Username: username, Name: name, Password: password, Role: r, PIN: pin}); err != nil {
		return err
	}
	// A changed password must not leave a sign-in made with the old one.
	if _, err := st.EndSessions(ctx, username); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "staff account %q saved (%s)\n", staffaccounts.Normalize(username), r.Label())
	return nil
}

// readSecret reads one line: from a terminal without echo after a prompt, else as it comes.
func readSecret(in *bufio.Reader, stdin io.Reader, stdout io.Writer, prompt string) (string, error) {
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(stdout, prompt)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(stdout)
		return string(b), err
	}
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// passwordHashing is the argon2id parameters of -argon2-memory (MiB), -argon2-time and
// -argon2-threads.
func (c *Config) passwordHashing() (staffaccounts.Params, error) {
	if c.Argon2Memory < 1 || c.Argon2Memory > 4096 || c.Argon2Time < 1 || c.Argon2Time > 100 || c.Argon2Threads < 1 || c.Argon2Threads > 255 {
		return staffaccounts.Params{}, fmt.Errorf("argon2-memory %d MiB (1-4096), argon2-time %d (1-100), argon2-threads %d (1-255): out of range",
			c.Argon2Memory, c.Argon2Time, c.Argon2Threads)
	}
	p := staffaccounts.Params{Memory: uint32(c.Argon2Memory) * 1024, Time: uint32(c.Argon2Time), Threads: uint8(c.Argon2Threads)}
	return p, p.Validate()
}

// checkStaffSettings validates the staff sign-in settings (complete calls it).
func (c *Config) checkStaffSettings() error {
	if c.StaffIdle < time.Minute {
		return fmt.Errorf("staff-idle %v: give at least 1m (the default is 15m)", c.StaffIdle)
	}
	_, err := c.passwordHashing()
	return err
}

// Demo staff accounts: only in demo mode (demoMode), never in a configured database.
const (
	demoStaffUser          = "counter"
	demoStaffPassword      = "counter-demo-2026"
	demoSupervisorUser     = "supervisor"
	demoSupervisorPassword = "supervisor-demo-2026"
	demoSupervisorPIN      = "246810"

	// Their argon2id hashes (staffaccounts.DefaultParams), made once: hashing the three secrets at
	// every start took about 130 ms. The salts are fixed, which costs nothing here: the
	// secrets are published. TestDemoHashesMatchThePublishedSecrets checks each pair.
	demoStaffPasswordHash      = "$argon2id$v=19$m=65536,t=3,p=2$1jJfNpEhWabABOc9zKoviw$moBJvmVeP4rmWctjYYYR1+ynvvCWRnPDdA5CRyzcQ+k"
	demoSupervisorPasswordHash = "$argon2id$v=19$m=65536,t=3,p=2$huSOyRnOVEUardBdU9SpNg$5J5rBNTkMM7hKuMnxrAyjZIPQbnu8jgjbOo0sfllLA4"
	demoSupervisorPINHash      = "$argon2id$v=19$m=65536,t=3,p=2$qX+UFzwzsSDO3VS8NJLM2Q$ZQONPmdyC3XaYdZviREwoi5X2amajAGu2cORGyKIeIs"
)

// demoMode: the embedded sandbox on the default SQLite file in the data folder (no other
// database configured). Only then do the demo accounts, whose passwords are published, exist.
func demoMode(cfg Config, embedded bool) bool {
	return embedded && cfg.DatabaseURL == defaultDatabaseURL(cfg.DataDir)
}

// defaultDatabaseURL is the database when none is configured (Config.complete).
func defaultDatabaseURL(dataDir string) string {
	return "sqlite:" + dataDir + string(os.PathSeparator) + "cinema.db"
}

// applyDemoAccounts creates the demo clerk and supervisor in demo mode and prints them. In any
// other mode it disables a demo account that still has its published password (a database
// first used for a demo, then configured), with a warning in the log.
func applyDemoAccounts(ctx context.Context, st *staffaccounts.Store, demo bool, logger *slog.Logger, stdout io.Writer) error {
	accounts := []staffaccounts.NewAccount{
		{Username: demoStaffUser, Name: words.DemoBoxOffice, Password: demoStaffPassword, Role: staffaccounts.Clerk,
			PasswordHash: demoStaffPasswordHash},
		{Username: demoSupervisorUser, Name: words.DemoSupervisor, Password: demoSupervisorPassword, Role: staffaccounts.Supervisor,
			PasswordHash: demoSupervisorPasswordHash, PIN: demoSupervisorPIN, PINHash: demoSupervisorPINHash},
	}
	if demo {
		for _, a := range accounts {
			if err := st.Save(ctx, a); err != nil {
				return err
			}
		}
		fmt.Fprintf(stdout, "Demo box-office sign-in (demo mode only): %s / %s (clerk), %s / %s (supervisor, approval PIN %s) at /staff/sign-in\n",
			demoStaffUser, demoStaffPassword, demoSupervisorUser, demoSupervisorPassword, demoSupervisorPIN)
		return nil
	}
	for _, a := range accounts {
		known, err := st.HasPassword(ctx, a.Username, a.Password)
		if err != nil {
			return err
		}
		if !known {
			continue
		}
		disabled, err := st.Disable(ctx, a.Username)
		if err != nil {
			return err
		}
		if disabled {
			logger.Warn("demo staff account with its published password found outside demo mode: disabled; set a password with `web staff` to use the account",
				"user", a.Username)
		}
	}
	return nil
}

// newLimitStore builds the rate limit store and the admission line shared by every replica:
// in Redis when sessions are there (the line then too), else the limits in the database and
// no line here (nil: the site keeps it in the process). The returned close releases a Redis
// client.
func newLimitStore(ctx context.Context, cfg Config, db *storage.DB) (ratelimit.Store, admission.Queue, func() error, error) {
	if storage.SessionStoreKind(cfg.SessionStore) != storage.SessionsRedis {
		return ratelimit.NewSQL(db.SQL), nil, func() error { return nil }, nil
	}
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parse redis URL: %w", err)
	}
	client := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if err := client.Ping(pctx).Err(); err != nil {
		client.Close()
		return nil, nil, nil, fmt.Errorf("ping redis: %w", err)
	}
	line := admission.NewRedis(client, "cinemabff:admission:", admission.Options{
		Limits: admission.Limits{PerMinute: cfg.AdmitPerMinute, Active: cfg.AdmitActive}, Lifetime: cfg.HoldLifetime})
	return ratelimit.NewRedis(client, "cinemabff:ratelimit:"), line, client.Close, nil
}
