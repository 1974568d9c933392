package cliconfig

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

type loadTest struct {
	Name  string        `env:"LT_NAME, default=dflt" flag:"name"`
	List  []string      `env:"LT_LIST" flag:"list,split"`
	Wait  time.Duration `env:"LT_WAIT, default=1s" flag:"wait"`
	Count int           `env:"LT_COUNT" flag:"count"`
	Inner struct {
		On bool `env:"LT_ON" flag:"on"`
	}
}

func loadWith(t *testing.T, args ...string) (loadTest, error) {
	t.Helper()
	var got loadTest
	var err error
	app := &cli.App{Name: "x", ExitErrHandler: func(*cli.Context, error) {}, Flags: []cli.Flag{
		&cli.StringFlag{Name: "name"}, &cli.StringSliceFlag{Name: "list"}, &cli.DurationFlag{Name: "wait"},
		&cli.IntFlag{Name: "count"}, &cli.BoolFlag{Name: "on"},
	}, Action: func(c *cli.Context) error { err = Load(c, &got); return nil }}
	if rerr := app.Run(append([]string{"x"}, args...)); rerr != nil {
		t.Fatal(rerr)
	}
	return got, err
}

// The environment fills every field (nested structs too), a flag given on
// the command line wins, and a bad variable is named.
func TestLoadEnvThenFlags(t *testing.T) {
	for _, k := range []string{"NAME", "LIST", "WAIT", "COUNT", "ON"} {
		t.Setenv("MCPCONFORM_LT_"+k, "")
		os.Unsetenv("MCPCONFORM_LT_" + k)
	}
	got, err := loadWith(t)
	if err != nil || got.Name != "dflt" || got.Wait != time.Second {
		t.Fatalf("defaults: %+v %v", got, err)
	}
	t.Setenv("MCPCONFORM_LT_NAME", "env")
	t.Setenv("MCPCONFORM_LT_LIST", "a,b")
	t.Setenv("MCPCONFORM_LT_COUNT", "3")
	t.Setenv("MCPCONFORM_LT_ON", "true")
	got, err = loadWith(t)
	if err != nil || got.Name != "env" || strings.Join(got.List, "|") != "a|b" || got.Count != 3 || !got.Inner.On {
		t.Fatalf("from the environment: %+v %v", got, err)
	}
	got, err = loadWith(t, "--name", "flag", "--list", "c, d", "--list", "e", "--count", "0", "--on=false", "--wait", "2s")
	if err != nil || got.Name != "flag" || strings.Join(got.List, "|") != "c|d|e" || got.Count != 0 || got.Inner.On || got.Wait != 2*time.Second {
		t.Fatalf("flags must win: %+v %v", got, err)
	}
	t.Setenv("MCPCONFORM_LT_ON", "maybe")
	if _, err = loadWith(t); err == nil || !strings.Contains(err.Error(), "environment: MCPCONFORM_LT_ON: ") {
		t.Errorf("a bad nested variable must be named: %v", err)
	}
	t.Setenv("MCPCONFORM_LT_ON", "")
	t.Setenv("MCPCONFORM_LT_WAIT", "soon")
	if _, err = loadWith(t); err == nil || !strings.Contains(err.Error(), "environment: MCPCONFORM_LT_WAIT: ") {
		t.Errorf("a bad variable must be named: %v", err)
	}
}

// Args gives back exactly the flags set, in the command's order, with
// repeated values repeated, skipped names left out and edit applied.
func TestArgsRendersTheSetFlags(t *testing.T) {
	var got []string
	cmd := &cli.Command{Name: "bench", Flags: []cli.Flag{
		&cli.StringFlag{Name: "name"}, &cli.StringSliceFlag{Name: "list"}, &cli.DurationFlag{Name: "wait"},
		&cli.IntFlag{Name: "count"}, &cli.BoolFlag{Name: "on"}, &cli.StringFlag{Name: "skip"}, &cli.StringFlag{Name: "unset"},
	}, Action: func(c *cli.Context) error {
		got = Args(c, func(name, v string) string {
			if name == "name" {
				return v + "/1"
			}
			return v
		}, "skip")
		return nil
	}}
	app := &cli.App{Name: "x", ExitErrHandler: func(*cli.Context, error) {}, Commands: []*cli.Command{cmd}}
	if err := app.Run([]string{"x", "bench", "--on=false", "--count", "0", "--list", "a", "--list", "b", "--wait", "90s", "--skip", "s", "--name", "n"}); err != nil {
		t.Fatal(err)
	}
	want := "--name=n/1 --list=a --list=b --wait=1m30s --count=0 --on=false"
	if strings.Join(got, " ") != want {
		t.Errorf("args %q, want %q", strings.Join(got, " "), want)
	}
}
