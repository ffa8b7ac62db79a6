package walletflow_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cinemabff/cinemabff/internal/bff/bfftest"
)

// logPost is a PassKit log post of about size bytes, as a phone sends it.
func logPost(size int) string {
	head, tail := `{"logs":["`, `"]}`
	return head + strings.Repeat("x", size-len(head)-len(tail)) + tail
}

// flood posts body to url n times within about a second from 8 connections at once, each
// request from the address from(i) says (via the trusted proxy; "" for none), and returns how
// many were taken (200) and the statuses seen.
func flood(t *testing.T, url string, n int, body string, from func(i int) string) (taken int, statuses map[int]int) {
	t.Helper()
	var ok atomic.Int64
	var mu sync.Mutex
	statuses = map[int]int{}
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				if addr := from(i); addr != "" {
					req.Header.Set("X-Forwarded-For", addr)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Error(err)
					continue
				}
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					ok.Add(1)
				}
				if resp.StatusCode == http.StatusTooManyRequests && resp.Header.Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if d := time.Since(start); d > 10*time.Second {
		t.Logf("the flood took %s", d)
	}
	return int(ok.Load()), statuses
}

// TestPassKitLogCannotBeFlooded: Wallet's log post (no token) is logged as one record with its
// messages; 200 posts of 64 KB in a second from one phone are not all taken and write next to
// nothing to the log, and neither do 200 small posts from 200 addresses (the site's own
// allowance, shared by every replica through the limit store).
func TestPassKitLogCannotBeFlooded(t *testing.T) {
	logs := &bfftest.Log{}
	h := bfftest.HoldHarness(t, bfftest.HarnessOpts{Logger: slog.New(slog.NewJSONHandler(logs, nil))})
	url := h.TS.URL + "/passkit/v1/log"
	const line = `"msg":"passkit device log"`

	resp, b := call(t, "POST", url, "", `{"logs":["Could not fetch pass","second message"]}`, map[string]string{"X-Forwarded-For": "198.51.100.1"})
	if resp.StatusCode != http.StatusOK || logs.Count(line) != 1 || logs.Count("Could not fetch pass") != 1 || logs.Count("second message") != 1 {
		t.Fatalf("a phone's log post: %d %s; log:\n%s", resp.StatusCode, b, logs.String())
	}

	// 64 KB as the site's own body limit counts it (64K: a larger post never reaches a handler).
	taken, statuses := flood(t, url, 200, logPost(64000), func(int) string { return "198.51.100.2" })
	if taken == 200 || logs.Count(line) > 6 {
		t.Fatalf("200 posts of 64 KB from one phone: %d taken (%v), %d log records", taken, statuses, logs.Count(line))
	}
	if statuses[http.StatusTooManyRequests] == 0 {
		t.Errorf("no post was refused as too many: %v", statuses)
	}

	before := logs.Count(line)
	taken, statuses = flood(t, url, 200, `{"logs":["small"]}`, func(i int) string { return fmt.Sprintf("203.0.113.%d", i+1) })
	if added := logs.Count(line) - before; taken == 200 || added > 25 {
		t.Fatalf("200 small posts from 200 addresses: %d taken (%v), %d log records", taken, statuses, added)
	}
}
