package tsbundle

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestBundleResolvesRelativeAndModules(t *testing.T) {
	fsys := fstest.MapFS{
		"main.ts":      {Data: []byte(`import { greet } from "./lib/greet"; import { V } from "@x/v"; (window as any).out = greet(V);`)},
		"lib/greet.ts": {Data: []byte(`export function greet(s: string): string { return "hi " + s + " </script>"; }`)},
	}
	html, err := HTML(Options{FS: fsys, Entry: "main.ts", Modules: map[string]string{"@x/v": `export const V: string = "v1";`}, Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!doctype html>", `"hi "`, `"v1"`, "<title>t</title>"} {
		if !strings.Contains(html, want) {
			t.Errorf("bundle lacks %q", want)
		}
	}
	if strings.Count(html, "</script") != 1 {
		t.Errorf("inline script closes early: %d occurrences of </script", strings.Count(html, "</script"))
	}
	if strings.Contains(html, ": string") {
		t.Error("types were not stripped")
	}
}

func TestBundleErrors(t *testing.T) {
	fsys := fstest.MapFS{"main.ts": {Data: []byte(`import "./missing";`)}}
	if _, err := JS(Options{FS: fsys, Entry: "main.ts"}); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("want an error naming the missing import, got %v", err)
	}
	fsys = fstest.MapFS{"main.ts": {Data: []byte(`const x = ;`)}}
	if _, err := JS(Options{FS: fsys, Entry: "main.ts"}); err == nil {
		t.Fatal("want a syntax error")
	}
}
