// Package migrations holds the SQL migrations of the BFF's own tables, one folder per dialect,
// embedded so the binary migrates its database at start without files on disk.
package migrations

import "embed"

// FS holds sqlite/*.sql and postgres/*.sql (goose format).
//
//go:embed sqlite/*.sql postgres/*.sql
var FS embed.FS
