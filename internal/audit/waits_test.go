package audit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// root is the repository, two levels up from this package.
const root = "../.."

// fixedWait is one place in the Go code that sleeps or polls at a fixed
// interval.
type fixedWait struct{ file, fn, what string }

// goFixedWaits finds, outside tests, testdata and node_modules, every
// time.Sleep, time.NewTicker and time.Tick, and every time.After of a
// constant duration inside a loop (a condition re-read every so often).
func goFixedWaits(t *testing.T) []fixedWait {
	t.Helper()
	var out []fixedWait
	fs := token.NewFileSet()
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fs, p, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if what := fixed(fd.Body, c); what != "" {
						out = append(out, fixedWait{filepath.ToSlash(rel), fd.Name.Name, what})
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fixed names call ("time.Sleep") when it is a fixed wait in body, else
// "".
func fixed(body *ast.BlockStmt, c *ast.CallExpr) string {
	switch name := timeCall(c); {
	case name == "Sleep" || name == "NewTicker" || name == "Tick":
		return "time." + name
	case name == "After" && len(c.Args) == 1 && constant(c.Args[0]) && inside(body, c):
		return "time.After"
	}
	return ""
}

// timeCall is the function name of a call time.X(...), else "".
func timeCall(c *ast.CallExpr) string {
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	if x, ok := s.X.(*ast.Ident); ok && x.Name == "time" {
		return s.Sel.Name
	}
	return ""
}

// inside reports whether call is in the body of a for or range loop of
// body.
func inside(body *ast.BlockStmt, call *ast.CallExpr) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if found || n == nil {
			return false
		}
		var b *ast.BlockStmt
		switch l := n.(type) {
		case *ast.ForStmt:
			b = l.Body
		case *ast.RangeStmt:
			b = l.Body
		}
		if b != nil && b.Pos() <= call.Pos() && call.End() <= b.End() {
			found = true
			return false
		}
		return true
	})
	return found
}

// constant reports whether e is made of literals and time's units only
// (100 * time.Millisecond): a fixed interval, not a deadline's remainder.
func constant(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.BasicLit:
		return true
	case *ast.ParenExpr:
		return constant(x.X)
	case *ast.BinaryExpr:
		return constant(x.X) && constant(x.Y)
	case *ast.SelectorExpr:
		id, ok := x.X.(*ast.Ident)
		return ok && id.Name == "time"
	}
	return false
}

// tsSleep matches a TypeScript sleep: a call of sleep(, a promise of a
// setTimeout, setInterval.
var tsSleep = regexp.MustCompile(`(^|[^A-Za-z_.])sleep\(|new Promise\(\(?r\)? => setTimeout\(r,|setInterval\(`)

// tsSleepingFiles are the suite's and the reference host's TypeScript
// files that sleep (outside the definition of sleep itself).
func tsSleepingFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"fixtures/suite", "hosts/reference/web"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".ts") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, l := range strings.Split(string(b), "\n") {
				if tsSleep.MatchString(l) && !strings.Contains(l, "const sleep =") {
					rel, _ := filepath.Rel(root, p)
					out = append(out, filepath.ToSlash(rel))
					break
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

func TestEveryFixedWaitIsAudited(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs/audit-waits.md"))
	if err != nil {
		t.Fatal(err)
	}
	// The table's rows, each naming `file` and the functions after it.
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| `") {
			rows = append(rows, strings.SplitN(l[1:], "|", 2)[0])
		}
	}
	// A row names files that exist (a file moved leaves no stale row).
	for _, r := range rows {
		for _, m := range regexp.MustCompile("`([a-z][a-z/]*\\.(go|ts))`").FindAllStringSubmatch(r, -1) {
			if _, err := os.Stat(filepath.Join(root, m[1])); err != nil {
				t.Errorf("docs/audit-waits.md has a row for %s, which does not exist", m[1])
			}
		}
	}
	audited := func(file, fn string) bool {
		for _, r := range rows {
			for _, part := range strings.Split(r, ", ") {
				if strings.Contains(part, "`"+file+"`") && (fn == "" || strings.Contains(part, "`"+fn+"`")) {
					return true
				}
			}
		}
		return false
	}
	waits := goFixedWaits(t)
	if len(waits) < 10 {
		t.Fatalf("found only %d fixed waits in the Go code: the scan is broken", len(waits))
	}
	for _, w := range waits {
		if !audited(w.file, w.fn) {
			t.Errorf("%s in %s (%s) has no row in docs/audit-waits.md: replace it by the event it stands for, or add a row saying why it stays", w.what, w.fn, w.file)
		}
	}
	files := tsSleepingFiles(t)
	if len(files) < 3 {
		t.Fatalf("found only %d sleeping TypeScript files: the scan is broken", len(files))
	}
	for _, f := range files {
		if !audited(f, "") {
			t.Errorf("%s sleeps and has no row in docs/audit-waits.md: replace the sleep by the event it stands for, or add a row saying why it stays", f)
		}
	}
}

// The scan finds what it is meant to: a sleep, a ticker, a constant
// time.After in a loop; not a deadline's remainder or a bound outside a
// loop.
func TestFixedWaitScan(t *testing.T) {
	src := `package p
import "time"
func sleeps() { time.Sleep(100 * time.Millisecond) }
func ticks() { _ = time.NewTicker(time.Second) }
func polls() { for { select { case <-time.After(50 * time.Millisecond): } } }
func bounded(d time.Duration) { for { select { case <-time.After(d): } } }
func once() { <-time.After(5 * time.Second) }
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok && fixed(fd.Body, c) != "" {
				got = append(got, fd.Name.Name)
			}
			return true
		})
	}
	if want := "sleeps ticks polls"; strings.Join(got, " ") != want {
		t.Errorf("flagged %q, want %q", strings.Join(got, " "), want)
	}
	for _, l := range []string{"await sleep(200);", "  await new Promise((r) => setTimeout(r, hold));", "setInterval(tick, 100)"} {
		if !tsSleep.MatchString(l) {
			t.Errorf("the TypeScript scan misses %q", l)
		}
	}
	for _, l := range []string{"const timer = setTimeout(done, 200);", "clearTimeout(this.timer)", "this.sleepy(3)"} {
		if tsSleep.MatchString(l) {
			t.Errorf("the TypeScript scan takes %q for a sleep", l)
		}
	}
}
