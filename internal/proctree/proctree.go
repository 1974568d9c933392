// Package proctree measures a process and all its descendants from /proc
// (Linux): CPU time and memory, sampled while a run goes on.
//
// CPU is the sum over the live tree of utime+stime+cutime+cstime from
// /proc/<pid>/stat: a descendant that exited and was waited for by its
// parent (also in the tree) moves into that parent's cutime/cstime, so
// nothing is counted twice and short-lived children are not lost. A
// descendant reparented to init before it exits is lost; the sampler keeps
// the maximum seen, so at most one interval of such a process goes missing.
//
// Memory is PSS (proportional set size) summed from /proc/<pid>/smaps_rollup:
// a page shared by n processes counts 1/n in each, so the sum is the tree's
// real footprint. The RSS sum is reported too, for comparison; it counts
// shared pages (Chromium's zygote-forked processes share a lot) once per
// process and overstates the footprint.
package proctree

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// FS reads a proc file system; Root is "/proc" unless a test says otherwise.
type FS struct {
	Root string
	// ClockTick is the unit of the stat CPU fields (USER_HZ); 0 reads it
	// from the auxiliary vector, falling back to 100.
	ClockTick time.Duration
}

// Proc is one process as /proc/<pid>/stat describes it.
type Proc struct {
	PID, PPID int
	Comm      string
	State     byte
	// CPU is utime+stime, ChildCPU cutime+cstime (waited-for children).
	CPU, ChildCPU time.Duration
}

// Sample is the tree at one moment.
type Sample struct {
	At    time.Time
	Procs []Proc
	// CPU is the tree's CPU time so far: Σ CPU+ChildCPU over Procs.
	CPU time.Duration
	// PSS and RSS are summed over Procs, in bytes; a process whose
	// smaps_rollup cannot be read (it exited meanwhile) counts 0.
	PSS, RSS int64
}

var defaultFS = &FS{Root: "/proc"}

// Take samples root and its descendants.
func Take(root int) (Sample, error) { return defaultFS.Take(root) }

// Take samples root and its descendants.
func (fs *FS) Take(root int) (Sample, error) {
	procs, err := fs.Tree(root)
	if err != nil {
		return Sample{}, err
	}
	s := Sample{At: time.Now(), Procs: procs}
	for _, p := range procs {
		s.CPU += p.CPU + p.ChildCPU
		if pss, rss, err := fs.Memory(p.PID); err == nil {
			s.PSS += pss
			s.RSS += rss
		}
	}
	return s, nil
}

// Tree lists root and every live descendant, root first.
func (fs *FS) Tree(root int) ([]Proc, error) {
	ents, err := os.ReadDir(fs.Root)
	if err != nil {
		return nil, err
	}
	all := map[int]Proc{}
	children := map[int][]int{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		p, err := fs.Stat(pid)
		if err != nil {
			continue // exited between ReadDir and here
		}
		all[pid] = p
		children[p.PPID] = append(children[p.PPID], pid)
	}
	r, ok := all[root]
	if !ok {
		return nil, fmt.Errorf("process %d not found in %s", root, fs.Root)
	}
	out := []Proc{r}
	for i := 0; i < len(out); i++ {
		kids := children[out[i].PID]
		sort.Ints(kids)
		for _, k := range kids {
			if k != root {
				out = append(out, all[k])
			}
		}
	}
	return out, nil
}

// Stat reads /proc/<pid>/stat.
func (fs *FS) Stat(pid int) (Proc, error) {
	b, err := os.ReadFile(filepath.Join(fs.Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return Proc{}, err
	}
	return parseStat(b, fs.tick())
}

// parseStat parses a stat line. The command name is in parentheses and may
// itself contain spaces and parentheses, so fields are counted from the
// last ')'.
func parseStat(b []byte, tick time.Duration) (Proc, error) {
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return Proc{}, fmt.Errorf("malformed stat %q", b)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:open])))
	if err != nil {
		return Proc{}, fmt.Errorf("malformed stat pid: %w", err)
	}
	f := strings.Fields(string(b[close+1:]))
	// f[0] is field 3 (state); utime..cstime are fields 14..17.
	if len(f) < 15 {
		return Proc{}, fmt.Errorf("malformed stat: %d fields after the name", len(f))
	}
	n := make([]int64, 5)
	for i, idx := range []int{1, 11, 12, 13, 14} { // ppid, utime, stime, cutime, cstime
		if n[i], err = strconv.ParseInt(f[idx], 10, 64); err != nil {
			return Proc{}, fmt.Errorf("malformed stat field %d: %w", idx+3, err)
		}
	}
	p := Proc{PID: pid, PPID: int(n[0]), Comm: string(b[open+1 : close]), State: f[0][0],
		CPU: time.Duration(n[1]+n[2]) * tick, ChildCPU: time.Duration(n[3]+n[4]) * tick}
	return p, nil
}

// Memory reads PSS and RSS (bytes) from /proc/<pid>/smaps_rollup.
func (fs *FS) Memory(pid int) (pss, rss int64, err error) {
	f, err := os.Open(filepath.Join(fs.Root, strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	return parseRollup(f)
}

func parseRollup(f *os.File) (pss, rss int64, err error) {
	sc := bufio.NewScanner(f)
	seen := 0
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "Pss" && k != "Rss") {
			continue
		}
		fs := strings.Fields(v)
		if len(fs) != 2 || fs[1] != "kB" {
			return 0, 0, fmt.Errorf("malformed smaps_rollup line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		if k == "Pss" {
			pss = kb << 10
		} else {
			rss = kb << 10
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return 0, 0, err
	}
	if seen < 2 {
		return 0, 0, errors.New("smaps_rollup has no Pss/Rss lines")
	}
	return pss, rss, nil
}

// Cmdline reads /proc/<pid>/cmdline with the NULs as spaces.
func (fs *FS) Cmdline(pid int) string {
	b, err := os.ReadFile(filepath.Join(fs.Root, strconv.Itoa(pid), "cmdline"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(bytes.ReplaceAll(b, []byte{0}, []byte{' '})))
}

func (fs *FS) tick() time.Duration {
	if fs.ClockTick == 0 {
		fs.ClockTick = clockTick(fs.Root)
	}
	return fs.ClockTick
}

// clockTick reads AT_CLKTCK (USER_HZ) from the auxiliary vector; Linux
// reports stat times in these units, almost always 100 per second.
func clockTick(root string) time.Duration {
	b, err := os.ReadFile(filepath.Join(root, "self", "auxv"))
	if err == nil {
		for i := 0; i+16 <= len(b); i += 16 {
			k, v := binary.NativeEndian.Uint64(b[i:]), binary.NativeEndian.Uint64(b[i+8:])
			if k == 17 && v > 0 { // AT_CLKTCK
				return time.Second / time.Duration(v)
			}
		}
	}
	return 10 * time.Millisecond
}

// Seen is a process the sampler saw in the tree at least once.
type Seen struct {
	PID     int
	Comm    string
	Cmdline string
}

// Result is what a sampler found between Start and Stop.
type Result struct {
	// CPU is the tree's CPU time between Start and Stop, the sampler's own
	// included (see SamplerCPU).
	CPU time.Duration
	// PeakPSS and PeakRSS are the largest sums seen in one sample, bytes.
	PeakPSS, PeakRSS int64
	PeakProcs        int
	Samples          int
	// SamplerCPU is the CPU time the sampler itself spent reading /proc
	// (its thread's, from getrusage(RUSAGE_THREAD)); it is part of CPU.
	SamplerCPU time.Duration
	// Seen lists every process seen in the tree, in order of first sight.
	Seen []Seen
}

// Sampler samples a process tree at an interval until stopped. Every
// sample is taken on one locked OS thread so that its cost can be measured.
type Sampler struct {
	fs       *FS
	root     int
	interval time.Duration
	now      chan chan struct{}
	stop     chan struct{}
	done     chan struct{}

	mu    sync.Mutex
	base  time.Duration
	res   Result
	known map[int]int // pid → index in res.Seen
	err   error
}

// Start samples root's tree at once and then every interval until Stop.
func Start(root int, interval time.Duration) (*Sampler, error) {
	return defaultFS.Start(root, interval)
}

// Start samples root's tree at once and then every interval until Stop.
func (fs *FS) Start(root int, interval time.Duration) (*Sampler, error) {
	s := &Sampler{fs: fs, root: root, interval: interval, now: make(chan chan struct{}), stop: make(chan struct{}), done: make(chan struct{}), known: map[int]int{}}
	first := make(chan error, 1)
	go s.loop(first)
	if err := <-first; err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Sampler) loop(first chan<- error) {
	defer close(s.done)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sm, err := s.fs.Take(s.root)
	if err != nil {
		first <- err
		return
	}
	s.base = sm.CPU
	s.add(sm)
	first <- nil
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			s.sample()
			return
		case ack := <-s.now:
			s.sample()
			close(ack)
		case <-t.C:
			s.sample()
		}
	}
}

// threadCPU is the calling OS thread's CPU time.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rusageThread is RUSAGE_THREAD (Linux).
const rusageThread = 1

func (s *Sampler) sample() {
	c0 := threadCPU()
	sm, err := s.fs.Take(s.root)
	cost := threadCPU() - c0
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.SamplerCPU += cost
	if err != nil {
		if s.err == nil {
			s.err = err
		}
		return
	}
	s.add(sm)
}

// Sample takes one sample now and waits for it.
func (s *Sampler) Sample() {
	ack := make(chan struct{})
	select {
	case s.now <- ack:
		<-ack
	case <-s.done:
	}
}

func (s *Sampler) add(sm Sample) { // with mu held, or before the loop runs
	r := &s.res
	r.Samples++
	if c := sm.CPU - s.base; c > r.CPU {
		r.CPU = c
	}
	r.PeakPSS = max(r.PeakPSS, sm.PSS)
	r.PeakRSS = max(r.PeakRSS, sm.RSS)
	r.PeakProcs = max(r.PeakProcs, len(sm.Procs))
	for _, p := range sm.Procs {
		i, ok := s.known[p.PID]
		if !ok {
			s.known[p.PID] = len(r.Seen)
			r.Seen = append(r.Seen, Seen{PID: p.PID, Comm: p.Comm, Cmdline: s.fs.Cmdline(p.PID)})
		} else if r.Seen[i].Comm != p.Comm {
			// First seen between fork and exec, with its parent's name:
			// it has exec'd since.
			r.Seen[i].Comm, r.Seen[i].Cmdline = p.Comm, s.fs.Cmdline(p.PID)
		}
	}
}

// Snapshot is the result so far, without stopping.
func (s *Sampler) Snapshot() Result {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res
	r.Seen = append([]Seen(nil), r.Seen...)
	return r
}

// Stop takes a last sample and returns the result; the error is the first
// failed sample, if any (the root process vanished).
func (s *Sampler) Stop() (Result, error) {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.res
	r.Seen = append([]Seen(nil), r.Seen...)
	return r, s.err
}

// Age is how long process pid has existed: /proc/uptime minus the start
// time in /proc/<pid>/stat (field 22), to a clock tick.
func (fs *FS) Age(pid int) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(fs.Root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat %q", b)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, errors.New("malformed stat: no start time")
	}
	start, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return 0, err
	}
	u, err := os.ReadFile(filepath.Join(fs.Root, "uptime"))
	if err != nil {
		return 0, err
	}
	up, err := strconv.ParseFloat(strings.Fields(string(u) + " 0")[0], 64)
	if err != nil {
		return 0, err
	}
	return time.Duration(up*float64(time.Second)) - time.Duration(start)*fs.tick(), nil
}

// Age is how long process pid has existed.
func Age(pid int) (time.Duration, error) { return defaultFS.Age(pid) }
