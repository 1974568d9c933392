package main

import (
	"bytes"
	"io"
	"os"
	"sync"
)

// stdinOnce lets --from - be read by both the other formats and --html:
// each call gives a reader of the same bytes, read from r (stdin when nil)
// only when one of them is first read, so a terminal is never waited on
// when no --from is -.
func stdinOnce(r io.Reader) func() io.Reader {
	if r == nil {
		r = os.Stdin
	}
	var once sync.Once
	var data []byte
	load := func() []byte {
		once.Do(func() { data, _ = io.ReadAll(r) })
		return data
	}
	return func() io.Reader { return &lazyReader{load: load} }
}

type lazyReader struct {
	load func() []byte
	r    *bytes.Reader
}

func (l *lazyReader) Read(p []byte) (int, error) {
	if l.r == nil {
		l.r = bytes.NewReader(l.load())
	}
	return l.r.Read(p)
}
