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

	"github.com/cinemabff/cinemabff/internal/staff"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// runStaff is `web staff -username U -name N [-database-url ...]`: it creates or replaces a
// box-office account. The password comes from CINEMA_STAFF_PASSWORD or the first line of
// standard input, never from a flag (flags show in process lists).
func runStaff(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("web staff", flag.ContinueOnError)
	fs.SetOutput(stdout)
	username := fs.String("username", "", "account name (required)")
	name := fs.String("name", "", "the person's name (required)")
	dbURL := fs.String("database-url", getenv(envName("database-url")), "database URL (default: sqlite:<data-dir>/cinema.db)")
	dataDir := fs.String("data-dir", firstNonEmpty(getenv(envName("data-dir")), "data"), "data folder for the default SQLite database")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *username == "" || *name == "" {
		return errors.New("staff: -username and -name are required")
	}
	if *dbURL == "" {
		*dbURL = "sqlite:" + *dataDir + string(os.PathSeparator) + "cinema.db"
	}
	password := getenv("CINEMA_STAFF_PASSWORD")
	if password == "" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && line == "" {
			return errors.New("staff: give the password in CINEMA_STAFF_PASSWORD or on standard input")
		}
		password = strings.TrimRight(line, "\r\n")
	}
	db, err := storage.Open(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.Migrate(ctx, slog.New(slog.DiscardHandler)); err != nil {
		return err
	}
	if err := staff.New(db.SQL).Put(ctx, *username, *name, password); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "staff account %q saved\n", strings.ToLower(*username))
	return nil
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// Demo staff account of the embedded sandbox (development only: never created when a real
// upstream is configured).
const (
	demoStaffUser     = "counter"
	demoStaffPassword = "counter-demo-2026"
)
