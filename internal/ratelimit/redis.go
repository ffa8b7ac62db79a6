package ratelimit

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in Redis (for deployments whose sessions are there). Each operation is one
// Lua script, atomic in Redis. Keys expire when their allowance is full again. The time is
// Redis's own, read inside the script: a time taken before the call can reach Redis after a
// later one (parallel requests, replicas whose clocks differ), and an attempt would then be
// refused one early.
type Redis struct {
	client redis.UniversalClient
	prefix string
	now    func() time.Time // SetClock (tests); nil: Redis's clock
}

// NewRedis returns a store on client; keys are prefix + key.
func NewRedis(client redis.UniversalClient, prefix string) *Redis {
	return &Redis{client: client, prefix: prefix}
}

// SetClock replaces Redis's clock with now (tests).
func (s *Redis) SetClock(now func() time.Time) { s.now = now }

// gcraScript: KEYS[1] the key; ARGV now (ms), interval (ms), tolerance (ms), mode (take, wait,
// give). It returns the wait in milliseconds: 0 is allowed (take) or nothing to wait (wait).
var gcraScript = redis.NewScript(`
local now = tonumber(ARGV[1])
if now < 0 then
	local t = redis.call('TIME')
	now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local every = tonumber(ARGV[2])
local tol = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if ARGV[4] == 'give' then
	if tat > 0 then
		tat = tat - every
		if tat > now then
			redis.call('SET', KEYS[1], tat, 'PX', tat - now)
		else
			redis.call('DEL', KEYS[1])
		end
	end
	return 0
end
local start = math.max(tat, now)
if start - now > tol then
	return start - now - tol
end
if ARGV[4] == 'take' then
	local new = start + every
	redis.call('SET', KEYS[1], new, 'PX', new - now)
end
return 0
`)

func (s *Redis) run(ctx context.Context, key string, r Rule, mode string) (time.Duration, error) {
	if !r.Valid() {
		return 0, ErrBadRule
	}
	now := int64(-1) // Redis's own clock, read inside the script
	if s.now != nil {
		now = s.now().UnixMilli()
	}
	ms, err := gcraScript.Run(ctx, s.client, []string{s.prefix + key},
		now, r.Every.Milliseconds(), r.tolerance().Milliseconds(), mode).Int64()
	if err != nil {
		return 0, wrap(mode, err)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// Take implements Store.
func (s *Redis) Take(ctx context.Context, key string, r Rule) (bool, time.Duration, error) {
	wait, err := s.run(ctx, key, r, "take")
	if err != nil {
		return false, 0, err
	}
	return wait == 0, wait, nil
}

// Wait implements Store.
func (s *Redis) Wait(ctx context.Context, key string, r Rule) (time.Duration, error) {
	return s.run(ctx, key, r, "wait")
}

// Give implements Store.
func (s *Redis) Give(ctx context.Context, key string, r Rule) error {
	_, err := s.run(ctx, key, r, "give")
	return err
}
