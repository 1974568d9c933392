package conform

import (
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/mcpconform/mcpconform/internal/proctree"
)

var procfs = &proctree.FS{Root: "/proc"}

// SoakFigures reports what a leak would make grow: goroutines, open file
// descriptors, live descendant processes, and memory.
func SoakFigures() string {
	var ms runtime.MemStats
	// Two collections: the first moves sync.Pool contents (encoding/json
	// keeps buffers of up to 128 KB there) to the victim cache, the second
	// frees them, so heap_live_mb is the data the process still holds.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	fds, _ := os.ReadDir("/proc/self/fd")
	var self, kids int64
	children := 0
	procs, _ := procfs.Tree(os.Getpid())
	for i, p := range procs {
		_, rss, _ := procfs.Memory(p.PID)
		if i == 0 {
			self = rss
			continue
		}
		if p.State == 'Z' {
			continue
		}
		// The children's RSS (driver, browser, renderers) double-counts
		// shared pages, but a leak in the browser shows as growth here.
		children++
		kids += rss
	}
	return fmt.Sprintf("goroutines=%d fds=%d children=%d heap_live_mb=%.2f heap_inuse_mb=%.1f rss_mb=%.1f children_rss_mb=%.0f",
		runtime.NumGoroutine(), len(fds), children, float64(ms.HeapAlloc)/(1<<20), float64(ms.HeapInuse)/(1<<20), float64(self)/(1<<20), float64(kids)/(1<<20))
}

// SoakLog is a RunOptions.AfterPass that prints the soak figures after
// each of repeat passes ("soak 2/5: goroutines=…"); it prints nothing for
// a single pass.
func SoakLog(w io.Writer, repeat int) func(pass int) {
	return func(pass int) {
		if repeat > 1 {
			fmt.Fprintf(w, "soak %d/%d: %s\n", pass, repeat, SoakFigures())
		}
	}
}
