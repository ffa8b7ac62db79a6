package main

import (
	"os"
	"testing"
	"time"
)

// processCPU reads the CPU time a process has used: it grows while the process works.
func TestProcessCPU(t *testing.T) {
	a, err := processCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	for end := time.Now().Add(50 * time.Millisecond); time.Now().Before(end); {
	}
	b, err := processCPU(os.Getpid())
	if err != nil || b < a || b-a > 10*time.Second {
		t.Fatalf("CPU %v then %v: %v", a, b, err)
	}
}
