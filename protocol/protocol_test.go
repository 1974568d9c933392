package protocol

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// tsConstArray returns the string members of `export const NAME = [...] as const`.
func tsConstArray(t *testing.T, name string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?s)export const ` + name + ` = \[(.*?)\] as const`)
	m := re.FindStringSubmatch(TS)
	if m == nil {
		t.Fatalf("protocol.ts has no const array %s", name)
	}
	var out []string
	for _, s := range regexp.MustCompile(`"([^"]*)"`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, s[1])
	}
	return out
}

func tsConstString(t *testing.T, name string) string {
	t.Helper()
	m := regexp.MustCompile(`export const ` + name + ` = "([^"]*)"`).FindStringSubmatch(TS)
	if m == nil {
		t.Fatalf("protocol.ts has no string const %s", name)
	}
	return m[1]
}

// tsInterfaceFields returns the field names of `export interface NAME { ... }`.
func tsInterfaceFields(t *testing.T, name string) []string {
	t.Helper()
	re := regexp.MustCompile(`(?s)export interface ` + name + ` \{(.*?)\n\}`)
	m := re.FindStringSubmatch(TS)
	if m == nil {
		t.Fatalf("protocol.ts has no interface %s", name)
	}
	var out []string
	for _, f := range regexp.MustCompile(`(?m)^\s+(\w+)\??:`).FindAllStringSubmatch(m[1], -1) {
		out = append(out, f[1])
	}
	return out
}

// jsonFields returns the JSON names of a Go struct's fields.
func jsonFields(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		tag := rt.Field(i).Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func sorted(xs []string) []string {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys
}

func TestConstantsAgree(t *testing.T) {
	if got := tsConstString(t, "PROTOCOL_VERSION"); got != Version {
		t.Errorf("PROTOCOL_VERSION: ts %q, go %q", got, Version)
	}
	if got := tsConstString(t, "CHANNEL"); got != ChannelName {
		t.Errorf("CHANNEL: ts %q, go %q", got, ChannelName)
	}
	for _, c := range []struct {
		ts  string
		go_ []string
	}{
		{"KINDS", strs(Kinds)},
		{"DIALOGS", strs(Dialogs)},
		{"STATUSES", strs(Statuses)},
		{"CLAUSES", strs(Clauses)},
		{"EDITIONS", strs(Editions)},
		{"VANTAGES", strs(Vantages)},
	} {
		if got := tsConstArray(t, c.ts); !slices.Equal(got, c.go_) {
			t.Errorf("%s: ts %q, go %q", c.ts, got, c.go_)
		}
	}
}

func TestUnionKindsMatchKindList(t *testing.T) {
	var kinds []string
	for _, m := range regexp.MustCompile(`\{ kind: "(\w+)"`).FindAllStringSubmatch(TS, -1) {
		kinds = append(kinds, m[1])
	}
	if !slices.Equal(kinds, strs(Kinds)) {
		t.Errorf("CapabilityRequest variants %q, Kinds %q", kinds, strs(Kinds))
	}
}

func TestRequestFieldsAgree(t *testing.T) {
	// Every field any union variant carries, plus seq from ParkedRequest.
	seen := map[string]bool{"seq": true}
	for _, v := range regexp.MustCompile(`\| \{ kind: "\w+"(.*?)\}`).FindAllStringSubmatch(TS, -1) {
		seen["kind"] = true
		for _, f := range regexp.MustCompile(`;\s*(\w+)\??:`).FindAllStringSubmatch(v[1], -1) {
			seen[f[1]] = true
		}
	}
	var ts []string
	for k := range seen {
		ts = append(ts, k)
	}
	if got, want := sorted(ts), sorted(jsonFields(Request{})); !slices.Equal(got, want) {
		t.Errorf("request fields: ts %q, go %q", got, want)
	}
}

func TestInterfacesAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		v    any
	}{
		{"CapabilityResult", Result{}},
		{"TestMeta", TestMeta{}},
		{"TestResult", TestResult{}},
		{"SuiteList", SuiteList{}},
		{"Poll", Poll{}},
		{"ResolvedPoll", ResolvedPoll{}},
		{"TriggerInfo", TriggerInfo{}},
	} {
		if got, want := sorted(tsInterfaceFields(t, c.name)), sorted(jsonFields(c.v)); !slices.Equal(got, want) {
			t.Errorf("%s fields: ts %q, go %q", c.name, got, want)
		}
	}
}

func TestRequestValidate(t *testing.T) {
	good := []Request{
		{Kind: KindClickTrigger},
		{Kind: KindConfirmDialog, Dialog: DialogOpenLink},
		{Kind: KindCheckLinkOpen, URL: "http://127.0.0.1/x"},
		{Kind: KindConversationContains, Marker: "m", TimeoutMs: 10},
		{Kind: KindToggleTheme, To: "dark"},
		{Kind: KindReadConsole, Pattern: "x"},
		{Kind: KindResetIsolation},
		{Kind: KindOpenTool, Tool: "conformance_slow"},
		{Kind: KindOpenTool, Tool: "conformance_slow", Arguments: json.RawMessage(`{"probe":"p1","delayMs":1200}`)},
	}
	for _, r := range good {
		if err := r.Validate(); err != nil {
			t.Errorf("%+v: unexpected error %v", r, err)
		}
	}
	bad := []Request{
		{Kind: "navigate"},
		{Kind: KindConfirmDialog, Dialog: "everything"},
		{Kind: KindCheckLinkOpen},
		{Kind: KindConversationContains},
		{Kind: KindToggleTheme, To: "blue"},
		{Kind: KindReadConsole},
		{Kind: KindOpenTool},
		{Kind: KindOpenTool, Tool: "t", Arguments: json.RawMessage(`[1]`)},
		{Kind: KindOpenTool, Tool: "t", Arguments: json.RawMessage(`null`)},
	}
	for _, r := range bad {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: expected an error", r)
		}
	}
}
