package web

import (
	"context"
	"sync"
	"time"

	"github.com/cinemabff/cinemabff/internal/cinema"
)

// cinemaCache keeps the upstream's cinema list for a while: it changes rarely and every page
// that shows a time or an amount needs a cinema's time zone and currency.
type cinemaCache struct {
	mu      sync.Mutex
	list    []cinema.Cinema
	fetched time.Time
}

const cinemaCacheTTL = 10 * time.Minute

// Cinemas returns the cinemas, from the cache when fresh (Listings, when set: one read at a
// time). On an upstream failure a stale list is better than none.
func (s *Kernel) Cinemas(ctx context.Context) ([]cinema.Cinema, error) {
	if s.Listings != nil {
		return s.Listings.Cinemas(ctx)
	}
	s.cinemaCache.mu.Lock()
	defer s.cinemaCache.mu.Unlock()
	if s.cinemaCache.list != nil && time.Since(s.cinemaCache.fetched) < cinemaCacheTTL {
		return s.cinemaCache.list, nil
	}
	list, err := s.Ticketing.ListCinemas(ctx)
	if err != nil {
		if s.cinemaCache.list != nil {
			return s.cinemaCache.list, nil
		}
		return nil, err
	}
	s.cinemaCache.list, s.cinemaCache.fetched = list, time.Now()
	return list, nil
}

// CinemaByID finds one cinema; an unknown id yields a UTC cinema with only its id.
func (s *Kernel) CinemaByID(ctx context.Context, id string) cinema.Cinema {
	list, err := s.Cinemas(ctx)
	if err == nil {
		for _, c := range list {
			if c.ID == id {
				return c
			}
		}
	}
	return cinema.Cinema{ID: id, Name: id}
}
