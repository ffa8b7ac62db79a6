package admission

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is the line in Redis, shared by every replica: one place per visitor, one order and
// the site's rate. Every change is one Lua script, atomic in Redis, so two replicas never hand
// out the same place or let in more than the rate. The keys are prefix + name; a Redis Cluster
// would need the prefix to carry a hash tag ("cinemabff:{admission}:").
type Redis struct {
	client redis.UniversalClient
	prefix string
	o      Options
	// ownClock: the line's time is Redis's (no Options.Now given), so replicas whose clocks
	// differ still keep one rate and one set of expiries.
	ownClock bool
}

// NewRedis returns the line kept in client under prefix. Without Options.Now its time is the
// Redis server's own.
func NewRedis(client redis.UniversalClient, prefix string, o Options) *Redis {
	return &Redis{client: client, prefix: prefix, o: o.withDefaults(), ownClock: o.Now == nil}
}

// nowMS is the time the scripts are given: 0 asks them for Redis's own.
func (r *Redis) nowMS() int64 {
	if r.ownClock {
		return 0
	}
	return r.o.Now().UnixMilli()
}

// now is the line's time: Redis's own, or the given clock's.
func (r *Redis) now(ctx context.Context) (time.Time, error) {
	if !r.ownClock {
		return r.o.Now(), nil
	}
	t, err := r.client.Time(ctx).Result()
	if err != nil {
		return time.Time{}, fmt.Errorf("admission: read the line's clock: %w", err)
	}
	return t, nil
}

// keep is how long a visitor's keys live without being asked about: past any admission and
// any place nobody asks about.
const keep = 24 * time.Hour

// enterScript: ARGV prefix, now (ms; 0: Redis's own time), show, visit, client, opens (ms; 0: open), new id, shuffle key,
// per minute, active, lifetime, abandoned, keep, away (ms). Returns {state, place, per minute, the
// waits (ms) of those it let in...}.
var enterScript = redis.NewScript(`
local p, now, show, visit, client = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], ARGV[5]
local opens, newid, key = tonumber(ARGV[6]), ARGV[7], ARGV[8]
local perMin, active = tonumber(ARGV[9]), tonumber(ARGV[10])
local life, abandoned, keep, away = tonumber(ARGV[11]), tonumber(ARGV[12]), tonumber(ARGV[13]), tonumber(ARGV[14])
if now == 0 then
	local t = redis.call('TIME')
	now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local line, adm, seq, early = p..'line', p..'admitted', p..'seq', p..'early:'..show
local lim = redis.call('GET', p..'limits')
if lim then
	local a, b, c = string.match(lim, '^(%d+):(%d+):(%d+)$')
	if a and tonumber(c) > now then perMin, active = tonumber(a), tonumber(b) end
end
redis.call('ZREMRANGEBYSCORE', adm, '-inf', now)
if opens <= now then
	for _, id in ipairs(redis.call('ZRANGE', early, 0, -1)) do
		if redis.call('EXISTS', p..'e:'..id) == 1 then
			redis.call('ZADD', line, redis.call('INCR', seq), id)
			redis.call('HSET', p..'e:'..id, 'state', 'line', 'joined', now)
		end
	end
	redis.call('DEL', early)
	redis.call('SREM', p..'shows', show)
end
local vk, ck = p..'v:'..show..':'..visit, p..'c:'..show..':'..client
local function live(id)
	if not id then return false end
	local st = redis.call('HGET', p..'e:'..id, 'state')
	if not st then return false end
	if st == 'admitted' and not redis.call('ZSCORE', adm, id) then
		redis.call('DEL', p..'e:'..id)
		return false
	end
	return true
end
local id = false
if visit ~= '' and live(redis.call('GET', vk)) then id = redis.call('GET', vk) end
if not id and client ~= '' and live(redis.call('GET', ck)) then id = redis.call('GET', ck) end
if not id then
	id = newid
	if opens > now then
		redis.call('HSET', p..'e:'..id, 'show', show, 'state', 'early')
		redis.call('ZADD', early, key, id)
		redis.call('SADD', p..'shows', show)
	else
		redis.call('HSET', p..'e:'..id, 'show', show, 'state', 'line', 'joined', now)
		redis.call('ZADD', line, redis.call('INCR', seq), id)
	end
end
local ek = p..'e:'..id
local state = redis.call('HGET', ek, 'state')
if opens > now and state == 'early' then
	-- Those waiting for the opening keep the list of early arrivals until it is past.
	redis.call('PEXPIRE', early, opens - now + keep)
end
if state == 'admitted' and redis.call('HGET', ek, 'claimed') == '0' then
	redis.call('ZADD', adm, now + life, id)
	redis.call('HSET', ek, 'claimed', '1')
end
redis.call('HSET', ek, 'seen', now, 'visit', visit, 'client', client)
redis.call('PEXPIRE', ek, keep)
if visit ~= '' then redis.call('SET', vk, id, 'PX', keep) end
if client ~= '' then redis.call('SET', ck, id, 'PX', keep) end
local every, tol = 0, 0
if perMin > 0 then
	every = math.floor(60000 / perMin)
	tol = (math.max(1, math.floor(perMin / 30)) - 1) * every
end
local tat = tonumber(redis.call('GET', p..'tat') or '0')
local let = {}
while true do
	local head = redis.call('ZRANGE', line, 0, 0)[1]
	if not head then break end
	local hk = p..'e:'..head
	local seen = tonumber(redis.call('HGET', hk, 'seen') or '-1')
	if seen < 0 or now - seen > abandoned then
		redis.call('ZREM', line, head)
		redis.call('DEL', hk)
	elseif head ~= id and now - seen < away and every > 0 then
		break
	else
		if active > 0 and redis.call('ZCARD', adm) >= active then break end
		if every > 0 then
			local start = math.max(tat, now)
			if start - now > tol then break end
			tat = start + every
		end
		redis.call('ZREM', line, head)
		if head == id then
			redis.call('ZADD', adm, now + life, head)
			redis.call('HSET', hk, 'state', 'admitted', 'claimed', '1')
		else
			redis.call('ZADD', adm, seen + abandoned, head)
			redis.call('HSET', hk, 'state', 'admitted', 'claimed', '0')
		end
		table.insert(let, now - tonumber(redis.call('HGET', hk, 'joined') or now))
	end
end
if every > 0 and tat > now then redis.call('SET', p..'tat', tat, 'PX', tat - now + 60000) end
local st = redis.call('HGET', ek, 'state')
local res = {1, 0, perMin}
if st == 'admitted' then res[1] = 0 elseif st == 'early' then res[1] = 2 else res[2] = redis.call('ZRANK', line, id) + 1 end
for _, w in ipairs(let) do table.insert(res, w) end
return res
`)

// Enter implements Queue.
func (r *Redis) Enter(ctx context.Context, show string, opens time.Time, v Visitor) (Status, error) {
	if v.Visit == "" && v.Client == "" {
		return Status{}, ErrNoVisitor
	}
	var opensMS int64
	if !opens.IsZero() {
		opensMS = opens.UnixMilli()
	}
	res, err := enterScript.Run(ctx, r.client, nil, r.prefix, r.nowMS(), show, v.Visit, v.Client, opensMS, newID(),
		strconv.FormatFloat(shuffleKey(), 'f', -1, 64), r.o.Limits.PerMinute, r.o.Limits.Active, r.o.Lifetime.Milliseconds(),
		r.o.Abandoned.Milliseconds(), keep.Milliseconds(), r.o.Away.Milliseconds()).Int64Slice()
	if err != nil {
		return Status{}, fmt.Errorf("admission: enter the line of %s: %w", show, err)
	}
	var let []time.Duration
	for _, ms := range res[3:] {
		let = append(let, time.Duration(ms)*time.Millisecond)
	}
	return statusOf(State(res[0]), int(res[1]), opens, Limits{PerMinute: int(res[2])}, let), nil
}

// leaveScript: ARGV prefix, show, visit, client.
var leaveScript = redis.NewScript(`
local p, show, visit, client = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local vk, ck = p..'v:'..show..':'..visit, p..'c:'..show..':'..client
for _, k in ipairs({vk, ck}) do
	local id = redis.call('GET', k)
	if id then
		redis.call('ZREM', p..'line', id)
		redis.call('ZREM', p..'admitted', id)
		redis.call('ZREM', p..'early:'..show, id)
		redis.call('DEL', p..'e:'..id)
		for _, m in ipairs({vk, ck}) do
			if redis.call('GET', m) == id then redis.call('DEL', m) end
		end
	end
end
return 0
`)

// Leave implements Queue.
func (r *Redis) Leave(ctx context.Context, show string, v Visitor) error {
	if err := leaveScript.Run(ctx, r.client, nil, r.prefix, show, v.Visit, v.Client).Err(); err != nil {
		return fmt.Errorf("admission: leave the line of %s: %w", show, err)
	}
	return nil
}

// Lines implements Queue.
func (r *Redis) Lines(ctx context.Context) ([]Line, error) {
	t, err := r.now(ctx)
	if err != nil {
		return nil, err
	}
	now := t.UnixMilli()
	waiting, err := r.client.ZRange(ctx, r.prefix+"line", 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("admission: read the lines: %w", err)
	}
	admitted, err := r.client.ZRangeByScore(ctx, r.prefix+"admitted", &redis.ZRangeBy{Min: strconv.FormatInt(now, 10), Max: "+inf"}).Result()
	if err != nil {
		return nil, fmt.Errorf("admission: read the lines: %w", err)
	}
	by := map[string]*Line{}
	line := func(show string) *Line {
		if by[show] == nil {
			by[show] = &Line{Show: show}
		}
		return by[show]
	}
	shows, err := r.showsOf(ctx, append(waiting, admitted...))
	if err != nil {
		return nil, err
	}
	for i, show := range shows {
		switch {
		case show == "":
		case i < len(waiting):
			line(show).Waiting++
		default:
			line(show).Admitted++
		}
	}
	if err := r.earlyLines(ctx, by); err != nil {
		return nil, err
	}
	return sortedLines(by), nil
}

// showsOf are the showtimes of entries, read in one round trip ("": the entry is gone).
func (r *Redis) showsOf(ctx context.Context, ids []string) ([]string, error) {
	pipe := r.client.Pipeline()
	cmds := make([]*redis.StringCmd, len(ids))
	for i, id := range ids {
		cmds[i] = pipe.HGet(ctx, r.prefix+"e:"+id, "show")
	}
	if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
		return nil, fmt.Errorf("admission: read the lines: %w", err)
	}
	shows := make([]string, len(ids))
	for i, c := range cmds {
		shows[i], _ = c.Result() // redis.Nil: gone
	}
	return shows, nil
}

// earlyLines counts those waiting for the opening of each showtime.
func (r *Redis) earlyLines(ctx context.Context, by map[string]*Line) error {
	shows, err := r.client.SMembers(ctx, r.prefix+"shows").Result()
	if err != nil {
		return fmt.Errorf("admission: read the lines: %w", err)
	}
	for _, show := range shows {
		n, err := r.client.ZCard(ctx, r.prefix+"early:"+show).Result()
		if err != nil {
			return fmt.Errorf("admission: read the lines: %w", err)
		}
		if n == 0 {
			continue
		}
		if by[show] == nil {
			by[show] = &Line{Show: show}
		}
		by[show].Early = int(n)
	}
	return nil
}

// SetLimits implements Queue.
func (r *Redis) SetLimits(ctx context.Context, l Limits, until time.Time) error {
	d := until.Sub(r.o.Now())
	if d <= 0 {
		return nil
	}
	// The new rate starts now, not after the old one's next admission.
	_, err := r.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, r.prefix+"limits", fmt.Sprintf("%d:%d:%d", l.PerMinute, l.Active, until.UnixMilli()), d+time.Minute)
		p.Del(ctx, r.prefix+"tat")
		return nil
	})
	if err != nil {
		return fmt.Errorf("admission: set the limits: %w", err)
	}
	return nil
}

// Limits implements Queue.
func (r *Redis) Limits(ctx context.Context) (Limits, error) {
	v, err := r.client.Get(ctx, r.prefix+"limits").Result()
	if err == redis.Nil {
		return r.o.Limits, nil
	}
	if err != nil {
		return Limits{}, fmt.Errorf("admission: read the limits: %w", err)
	}
	now, err := r.now(ctx)
	if err != nil {
		return Limits{}, err
	}
	var l Limits
	var until int64
	if _, err := fmt.Sscanf(v, "%d:%d:%d", &l.PerMinute, &l.Active, &until); err != nil || until <= now.UnixMilli() {
		return r.o.Limits, nil
	}
	return l, nil
}

// Totals implements Queue: counted in Redis, without reading every entry.
func (r *Redis) Totals(ctx context.Context) (Line, error) {
	at, err := r.now(ctx)
	if err != nil {
		return Line{}, err
	}
	now := strconv.FormatInt(at.UnixMilli(), 10)
	waiting, err := r.client.ZCard(ctx, r.prefix+"line").Result()
	if err != nil {
		return Line{}, fmt.Errorf("admission: count the line: %w", err)
	}
	admitted, err := r.client.ZCount(ctx, r.prefix+"admitted", now, "+inf").Result()
	if err != nil {
		return Line{}, fmt.Errorf("admission: count the admissions: %w", err)
	}
	early := map[string]*Line{}
	if err := r.earlyLines(ctx, early); err != nil {
		return Line{}, err
	}
	t := Line{Waiting: int(waiting), Admitted: int(admitted)}
	for _, l := range early {
		t.Early += l.Early
	}
	return t, nil
}
