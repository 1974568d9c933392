package reference

import (
	"slices"
	"testing"
)

func TestAppToolRegistry(t *testing.T) {
	type op struct {
		callID string
		names  []string
	}
	cases := []struct {
		name string
		ops  []op
		want []string
	}{
		{"empty", nil, nil},
		{"one view", []op{{"c1", []string{"a", "b"}}}, []string{"a", "b"}},
		{"two views by call id", []op{{"c2", []string{"z"}}, {"c1", []string{"a"}}}, []string{"a", "z"}},
		{"relisted replaces", []op{{"c1", []string{"a", "b"}}, {"c1", []string{"c"}}}, []string{"c"}},
		{"removed view forgotten", []op{{"c1", []string{"a"}}, {"c2", []string{"b"}}, {"c1", nil}}, []string{"b"}},
		{"forgetting an unknown view", []op{{"c9", nil}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r appToolRegistry
			for _, o := range c.ops {
				r.set(o.callID, o.names)
			}
			if got := r.names(); !slices.Equal(got, c.want) {
				t.Errorf("names() = %v, want %v", got, c.want)
			}
		})
	}
}

func TestAppToolRegistryCopiesNames(t *testing.T) {
	var r appToolRegistry
	in := []string{"a"}
	r.set("c1", in)
	in[0] = "changed"
	if got := r.names(); !slices.Equal(got, []string{"a"}) {
		t.Errorf("names() = %v after the caller changed its slice, want [a]", got)
	}
}

func TestAppToolRegistryViewOf(t *testing.T) {
	var r appToolRegistry
	r.set("c2", []string{"shared", "b"})
	r.set("c1", []string{"a", "shared"})
	cases := []struct {
		name, tool, want string
		ok               bool
	}{
		{"first view", "a", "c1", true},
		{"second view", "b", "c2", true},
		{"two views: the first by call id", "shared", "c1", true},
		{"no view", "zzz", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := r.viewOf(c.tool)
			if got != c.want || ok != c.ok {
				t.Errorf("viewOf(%q) = %q, %v; want %q, %v", c.tool, got, ok, c.want, c.ok)
			}
		})
	}
	r.set("c1", nil)
	if _, ok := r.viewOf("a"); ok {
		t.Error("viewOf(a) found the tool of a forgotten View")
	}
}

func TestAppToolRegistryWasClosed(t *testing.T) {
	var r appToolRegistry
	r.set("c1", []string{"a", "b"})
	r.set("c2", []string{"c"})
	if r.wasClosed("a") {
		t.Error("wasClosed(a) while its View is shown")
	}
	r.set("c1", nil)
	for _, c := range []struct {
		tool string
		want bool
	}{{"a", true}, {"b", true}, {"c", false}, {"never", false}} {
		if got := r.wasClosed(c.tool); got != c.want {
			t.Errorf("wasClosed(%q) = %v after c1 was removed, want %v", c.tool, got, c.want)
		}
	}
	// A new View providing the same tool: shown again, not closed.
	r.set("c3", []string{"a"})
	if r.wasClosed("a") {
		t.Error("wasClosed(a) while another View provides it")
	}
}
