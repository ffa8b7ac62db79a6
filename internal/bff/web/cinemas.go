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
func (k *Kernel) Cinemas(ctx context.Context) ([]cinema.Cinema, error) {
	if k.Listings != nil {
		return k.Listings.Cinemas(ctx)
	}
	k.cinemaCache.mu.Lock()
	defer k.cinemaCache.mu.Unlock()
	if k.cinemaCache.list != nil && time.Since(k.cinemaCache.fetched) < cinemaCacheTTL {
		return k.cinemaCache.list, nil
	}
	list, err := k.Ticketing.ListCinemas(ctx)
	if err != nil {
		if k.cinemaCache.list != nil {
			return k.cinemaCache.list, nil
		}
		return nil, err
	}
	k.cinemaCache.list, k.cinemaCache.fetched = list, time.Now()
	return list, nil
}

// CinemaByID finds one cinema; an unknown id yields a UTC cinema with only its id.
func (k *Kernel) CinemaByID(ctx context.Context, id string) cinema.Cinema {
	list, err := k.Cinemas(ctx)
	if err == nil {
		for _, c := range list {
			if c.ID == id {
				return c
			}
		}
	}
	return cinema.Cinema{ID: id, Name: id}
}
