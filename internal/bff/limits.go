package bff

import (
	"github.com/cinemabff/cinemabff/internal/ratelimit"
	"github.com/cinemabff/cinemabff/internal/storage"
)

// defaultLimits is the limit store when Deps names none: the database's, shared by every
// replica, or (no database: tests of the web layer alone) this process's memory.
func defaultLimits(db *storage.DB) ratelimit.Store {
	if db != nil {
		return ratelimit.NewSQL(db.SQL)
	}
	return ratelimit.NewMemory()
}
