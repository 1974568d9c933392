package proctree

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// A command name with spaces and a ')' of its own; fields after it as
	// in proc(5): state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime ...
	line := "4242 (we ird) (name) S 17 4242 4242 0 -1 4194560 10 0 0 0 250 50 1000 200 20 0 1 0 100 0 0\n"
	p, err := parseStat([]byte(line), 10*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != 4242 || p.PPID != 17 || p.Comm != "we ird) (name" || p.State != 'S' {
		t.Fatalf("parsed %+v", p)
	}
	if p.CPU != 3*time.Second || p.ChildCPU != 12*time.Second {
		t.Fatalf("cpu %v child %v, want 3s and 12s", p.CPU, p.ChildCPU)
	}
	for _, bad := range []string{"", "12 no parens", "12 (x) S 1 2", "x (y) S 1 1 1 0 -1 0 0 0 0 0 a b c d"} {
		if _, err := parseStat([]byte(bad), time.Millisecond); err == nil {
			t.Errorf("parseStat(%q) accepted a malformed line", bad)
		}
	}
}

// A fake /proc: the tree is root 10 → 11 → 12 and 10 → 13; 20 is a
// stranger whose parent is 1.
func fakeProc(t *testing.T) *FS {
	t.Helper()
	dir := t.TempDir()
	procs := []struct {
		pid, ppid        int
		ut, st, cut, cst int
		pssKB, rssKB     int
		noRollup         bool
	}{
		{10, 1, 100, 50, 30, 20, 1000, 4000, false},
		{11, 10, 10, 10, 0, 0, 2000, 5000, false},
		{12, 11, 5, 5, 0, 0, 3000, 6000, false},
		{13, 10, 1, 1, 0, 0, 0, 0, true}, // exited before its rollup was read
		{20, 1, 9999, 9999, 0, 0, 99999, 99999, false},
	}
	for _, p := range procs {
		d := filepath.Join(dir, fmt.Sprint(p.pid))
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := fmt.Sprintf("%d (proc %d) S %d 1 1 0 -1 0 0 0 0 0 %d %d %d %d 20 0 1 0 1 0 0\n", p.pid, p.pid, p.ppid, p.ut, p.st, p.cut, p.cst)
		must(t, os.WriteFile(filepath.Join(d, "stat"), []byte(stat), 0o644))
		must(t, os.WriteFile(filepath.Join(d, "cmdline"), []byte(fmt.Sprintf("prog\x00--id\x00%d\x00", p.pid)), 0o644))
		if !p.noRollup {
			roll := fmt.Sprintf("00400000-7fff [rollup]\nRss:  %d kB\nPss:  %d kB\nPss_Anon: 1 kB\n", p.rssKB, p.pssKB)
			must(t, os.WriteFile(filepath.Join(d, "smaps_rollup"), []byte(roll), 0o644))
		}
	}
	must(t, os.MkdirAll(filepath.Join(dir, "self"), 0o755))
	return &FS{Root: dir, ClockTick: 10 * time.Millisecond}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestTakeSumsTheTreeOnly(t *testing.T) {
	fs := fakeProc(t)
	s, err := fs.Take(10)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range s.Procs {
		pids = append(pids, p.PID)
	}
	if fmt.Sprint(pids) != "[10 11 13 12]" {
		t.Fatalf("tree %v, want root first then breadth-first [10 11 13 12]", pids)
	}
	// (100+50+30+20) + (10+10) + (5+5) + (1+1) ticks of 10 ms.
	if s.CPU != 2320*time.Millisecond {
		t.Errorf("CPU %v, want 2.32s", s.CPU)
	}
	if s.PSS != 6000<<10 || s.RSS != 15000<<10 {
		t.Errorf("PSS %d RSS %d, want %d and %d", s.PSS, s.RSS, 6000<<10, 15000<<10)
	}
	if _, err := fs.Take(99); err == nil {
		t.Error("a missing root was not an error")
	}
	if got := fs.Cmdline(12); got != "prog --id 12" {
		t.Errorf("cmdline %q", got)
	}
}

func TestClockTickFromAuxv(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("auxv is Linux")
	}
	// Linux reports USER_HZ; on every architecture Go runs on that is 100.
	if got := clockTick("/proc"); got != 10*time.Millisecond {
		t.Errorf("clock tick %v, want 10ms", got)
	}
	if got := clockTick(t.TempDir()); got != 10*time.Millisecond {
		t.Errorf("fallback clock tick %v, want 10ms", got)
	}
}

// The helper process: with PROCTREE_HELPER=parent it starts itself as a
// grandchild and relays its lines; with PROCTREE_HELPER=burn it burns
// 400 ms of CPU, touches 64 MiB, says "ready" and waits for stdin to close.
func TestMain(m *testing.M) {
	switch os.Getenv("PROCTREE_HELPER") {
	case "burn":
		var ru syscall.Rusage
		for {
			syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
			if time.Duration(ru.Utime.Nano()+ru.Stime.Nano()) >= 400*time.Millisecond {
				break
			}
			for i := 0; i < 1_000_000; i++ {
				_ = i * i
			}
		}
		buf := make([]byte, 64<<20)
		for i := 0; i < len(buf); i += 4096 {
			buf[i] = 1
		}
		fmt.Println("ready")
		io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(buf)
		os.Exit(0)
	case "parent":
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "PROCTREE_HELPER=burn")
		cmd.Stdin = os.Stdin
		cmd.Stdout = os.Stdout
		if err := cmd.Run(); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The sampler sees a grandchild's CPU and memory while it lives and keeps
// its CPU after it exits (waited for by its parent, it moves into cutime).
func TestSamplerSeesDescendants(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux")
	}
	s, err := Start(os.Getpid(), 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	before := s.Snapshot()

	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PROCTREE_HELPER=parent")
	stdin, err := cmd.StdinPipe()
	must(t, err)
	stdout, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "ready" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	s.Sample()
	live := s.Snapshot()
	if live.PeakProcs < 3 {
		t.Errorf("peak %d processes, want at least 3 (test, parent, grandchild)", live.PeakProcs)
	}
	if grew := live.PeakPSS - before.PeakPSS; grew < 60<<20 {
		t.Errorf("peak PSS grew by %d MiB while the grandchild held 64 MiB", grew>>20)
	}
	if live.CPU < 400*time.Millisecond {
		t.Errorf("CPU %v while the grandchild burned at least 400ms", live.CPU)
	}
	var sawBurn bool
	for _, p := range live.Seen {
		if p.PID != os.Getpid() && p.PID != cmd.Process.Pid && strings.Contains(p.Cmdline, filepath.Base(os.Args[0])) {
			sawBurn = true
		}
	}
	if !sawBurn {
		t.Errorf("the grandchild is not among the processes seen: %+v", live.Seen)
	}

	stdin.Close()
	must(t, cmd.Wait())
	res, err := s.Stop()
	must(t, err)
	// Everything exited and was waited for: the CPU is still accounted,
	// now through cutime/cstime.
	final, err := Take(os.Getpid())
	must(t, err)
	if len(final.Procs) != 1 {
		t.Errorf("after the helpers exited the tree has %d processes", len(final.Procs))
	}
	if res.CPU < 400*time.Millisecond {
		t.Errorf("CPU after exit %v, want at least 400ms", res.CPU)
	}
	if res.Samples < 3 || res.SamplerCPU <= 0 || res.SamplerCPU > res.CPU {
		t.Errorf("samples %d, sampler CPU %v of %v", res.Samples, res.SamplerCPU, res.CPU)
	}
}

func TestAge(t *testing.T) {
	fs := fakeProc(t)
	// Process 10 started 100 ticks (1 s) after boot; the machine is up 61.5 s.
	stat := "10 (p) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 100 0 0\n"
	must(t, os.WriteFile(filepath.Join(fs.Root, "10", "stat"), []byte(stat), 0o644))
	must(t, os.WriteFile(filepath.Join(fs.Root, "uptime"), []byte("61.50 100.00\n"), 0o644))
	if a, err := fs.Age(10); err != nil || a != 60500*time.Millisecond {
		t.Fatalf("age %v %v, want 60.5s", a, err)
	}
	if runtime.GOOS == "linux" {
		a, err := Age(os.Getpid())
		if err != nil || a < 0 || a > time.Hour {
			t.Errorf("own age %v %v", a, err)
		}
	}
}

// A process first seen between fork and exec carries its parent's name;
// the sampler records what it became.
func TestSamplerFollowsExec(t *testing.T) {
	fs := fakeProc(t)
	s, err := fs.Start(10, time.Hour)
	must(t, err)
	d := filepath.Join(fs.Root, "12")
	must(t, os.WriteFile(filepath.Join(d, "stat"), []byte("12 (chromium) S 11 1 1 0 -1 0 0 0 0 0 5 5 0 0 20 0 1 0 1 0 0\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(d, "cmdline"), []byte("/usr/lib/chromium/chromium\x00--type=renderer\x00"), 0o644))
	s.Sample()
	res, err := s.Stop()
	must(t, err)
	var got []string
	for _, p := range res.Seen {
		got = append(got, fmt.Sprintf("%d %s %q", p.PID, p.Comm, p.Cmdline))
	}
	want := []string{`10 proc 10 "prog --id 10"`, `11 proc 11 "prog --id 11"`, `13 proc 13 "prog --id 13"`, `12 chromium "/usr/lib/chromium/chromium --type=renderer"`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("seen:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if res.Samples != 3 || res.PeakProcs != 4 {
		t.Errorf("samples %d, peak processes %d", res.Samples, res.PeakProcs)
	}
}
