// Command web is the cinema BFF: one binary that serves the site on embedded defaults
// (SQLite, an in-process sandbox upstream) and, with `web sandbox`, the sandbox alone.
package main

import (
	_ "time/tzdata" // cinema time zones on machines (and images) without a zone database

	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
