package generic

import (
	"strings"
	"testing"

	"github.com/sethvargo/go-envconfig"
)

// Every token shaped like a placeholder is checked, in every variable: a
// misspelt one is refused with the placeholder it most likely meant
// (issue #28: {arguments.probe} and {arguments:delayMs} used to pass
// --check as literal text, and with them a form that never got its
// arguments).
func TestPlaceholderShapedTokensAreChecked(t *testing.T) {
	refused(t, []badProfile{
		{"an argument written with a colon", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool}\nfill [name=delayMs]={arguments:delayMs}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 2", "unknown placeholder {arguments:delayMs}", "did you mean {arguments.delayMs}?", "{arguments.NAME}"}},
		{"upper case", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}/?s={Server}"),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "unknown placeholder {Server}", "did you mean {server}?"}},
		{"a misspelt form", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}/?s={server:URL}"),
			[]string{"MCPCONFORM_DEMO_STEPS step 1", "unknown placeholder {server:URL}", "did you mean {server:url}?"}},
		{"an argument outside OPEN_TOOL", with(full(), "MCPCONFORM_DEMO_STEPS", "goto {url}; fill #p={arguments.probe}"),
			[]string{"MCPCONFORM_DEMO_STEPS step 2", "unknown placeholder {arguments.probe}", "{arguments} is available in OPEN_TOOL only"}},
		{"a field of another placeholder", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/{tool.name}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 1", "unknown placeholder {tool.name}"}},
		{"in START", with(full(), "MCPCONFORM_DEMO_START", "my-host --server {sever}"),
			[]string{"MCPCONFORM_DEMO_START", "unknown placeholder {sever}", "did you mean {server}?"}},
		{"in READY's line", with(full(), "MCPCONFORM_DEMO_READY", "line:listening on {prot}"),
			[]string{"MCPCONFORM_DEMO_READY", "unknown placeholder {prot}", "did you mean {port}?"}},
		{"in a variable that takes none", with(full(), "MCPCONFORM_DEMO_APP_FRAME", "iframe[data-tool={tool}]"),
			[]string{"MCPCONFORM_DEMO_APP_FRAME", "{tool} looks like a placeholder, but this variable takes none"}},
		{"{key} outside fill-form", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?t={tool}\nfill [name={key}]=x"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 2", "unknown placeholder {key}", "the selector of a fill-form step"}},
		{"fill-form without {key}", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?t={tool}\nfill-form #args={arguments}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 2", "never uses {key}"}},
		{"fill-form of a text", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?t={tool}\nfill-form [name={key}]={tool}"),
			[]string{"MCPCONFORM_DEMO_OPEN_TOOL step 2", "fill-form needs a JSON object after ="}},
	})
}

// What is not placeholder-shaped stays literal (JSON, braces around words
// with spaces, shell variables), and the new placeholders are accepted.
func TestPlaceholdersThatAreAccepted(t *testing.T) {
	vars := with(full(),
		"MCPCONFORM_DEMO_START", `my-host --server {server} --port {port} --home "${HOME}" --note '{ not a placeholder }'`,
		"MCPCONFORM_DEMO_READY", "line:listening on {port}",
		"MCPCONFORM_DEMO_STEPS", `goto {url}; fill textarea={"nonce": "{nonce}"}; fill-form [name="{key}"]={"nonce":"{nonce}"}`,
		"MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool:url}&probe={arguments.probe:url}\nfill [name=delayMs]={arguments.delayMs}\nfill-form form [name=\"{key}\"]={arguments}")
	if r := Check("demo", envconfig.MapLookuper(vars)); !r.OK() {
		t.Fatalf("refused: %v", r.Err)
	}
}

// {arguments.NAME} is one argument as a form field holds it: a string as
// is, another value as JSON, nothing for an argument the call lacks.
func TestArgumentPlaceholders(t *testing.T) {
	vars := map[string]string{PhArguments: `{"probe":"p 1","delayMs":1200,"csp":true,"opts":{"a":[1, 2]}}`}
	for in, want := range map[string]string{
		"{arguments.probe}":     "p 1",
		"{arguments.probe:url}": "p%201",
		"{arguments.delayMs}":   "1200",
		"{arguments.csp}":       "true",
		"{arguments.opts}":      `{"a":[1,2]}`,
		"{arguments.mode}":      "",
		"x{arguments.delayMs}y": "x1200y",
		"${arguments.probe}":    "${arguments.probe}", // shell, not ours
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestFormFieldsKeepTheObjectsOrder(t *testing.T) {
	fs, err := formFields(`{"probe":"p1","delayMs":0,"csp":true,"embed":null}`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.key+"="+fieldText(f.raw))
	}
	if want := "probe=p1 delayMs=0 csp=true embed="; strings.Join(got, " ") != want {
		t.Errorf("fields %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := formFields(`["probe"]`); err == nil {
		t.Error("an array was taken for an object")
	}
	for raw, want := range map[string]bool{"true": true, `"true"`: true, "false": false, "null": false} {
		if got, ok := boolValue([]byte(raw)); !ok || got != want {
			t.Errorf("boolValue(%s) = %v %v", raw, got, ok)
		}
	}
	if _, ok := boolValue([]byte("1")); ok {
		t.Error("1 taken for a boolean")
	}
}

// --check shows each step with example values: a goto's literal query
// values and fill's literal text stay hidden (tokens, passwords), what the
// placeholders give is shown, and fill-form shows each field's selector
// and value.
func TestCheckShowsStepsWithExampleValues(t *testing.T) {
	vars := with(full(),
		"MCPCONFORM_DEMO_STEPS", `goto {url}/?s={server:url}&token=SECRET1&x; fill #pw=SECRET2{nonce}; fill-form [name="{key}"]={"nonce":"{nonce}"}; click #go`,
		"MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool:url}\nclick [data-tool=\"{tool}\"]\nfill-form form [name=\"{key}\"]={arguments}")
	var b strings.Builder
	if err := PrintCheck(&b, "demo", envconfig.MapLookuper(vars)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"    1. goto {url}/?…\n       e.g. goto http://127.0.0.1:41000/?s=http%3A%2F%2F127.0.0.1%3A41001%2Fmcp&token=…&…\n",
		"    2. fill #pw=(23 characters)\n       e.g. fill #pw=…0123456789abcdef\n",
		"    3. fill-form [name=\"{key}\"]=(fields nonce)\n       e.g. fill-form [name=\"nonce\"]=0123456789abcdef\n",
		"    4. click #go\n  START:", // no example for a step without placeholders
		"    2. click [data-tool=\"{tool}\"]\n       e.g. click [data-tool=\"conformance_slow\"]\n",
		"    3. fill-form form [name=\"{key}\"]=({arguments})\n       e.g. fill-form form [name=\"probe\"]=probe-1; form [name=\"delayMs\"]=1200; form [name=\"csp\"]=true\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("--check does not show\n%s\nin:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SECRET") {
		t.Errorf("--check shows a secret:\n%s", out)
	}
	if strings.Contains(out, "warning:") {
		t.Errorf("a warning for a profile that is fine:\n%s", out)
	}
}

// --check warns where a capability can never be used: CLOSE and CANCEL act
// on probe Views, which only OPEN_TOOL (or an agent) can open; OPEN_TOOL
// that drops the arguments opens the wrong probe.
func TestCheckWarnsOfCapabilitiesNothingCanUse(t *testing.T) {
	for _, c := range []struct {
		name string
		vars map[string]string
		want string
	}{
		{"CLOSE and CANCEL without OPEN_TOOL", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "<unset>"),
			"warning: closeView and cancelTool act only on a probe View, which the suite opens through openTool (MCPCONFORM_DEMO_OPEN_TOOL)"},
		{"OPEN_TOOL without the arguments", with(full(), "MCPCONFORM_DEMO_OPEN_TOOL", "goto {url}/?tool={tool}"),
			"warning: MCPCONFORM_DEMO_OPEN_TOOL never uses {arguments} or {arguments.NAME}"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			if err := PrintCheck(&b, "demo", envconfig.MapLookuper(c.vars)); err != nil {
				t.Fatalf("a warning made the profile unusable: %v", err)
			}
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("no warning %q in:\n%s", c.want, b.String())
			}
		})
	}
}
