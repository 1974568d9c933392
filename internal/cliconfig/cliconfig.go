// Package cliconfig is the one configuration mechanism of every mcpconform
// command: a struct whose fields carry an `env` tag (read through
// go-envconfig from MCPCONFORM_<NAME>) and a `flag` tag naming the
// command-line flag that, when given, wins. `flag:"name,split"` also
// splits the flag's values at commas.
package cliconfig

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/sethvargo/go-envconfig"
	"github.com/urfave/cli/v2"

	"github.com/mcpconform/mcpconform/internal/envkeys"
)

// Environ is where MCPCONFORM_* variables are looked up.
var Environ envconfig.Lookuper = envconfig.OsLookuper()

// Prefix starts the name of every variable.
const Prefix = "MCPCONFORM_"

// Load fills the struct cfg points to from the environment, then from the
// flags set on c's command line. A malformed variable is an error naming
// it.
func Load(c *cli.Context, cfg any) error {
	if err := envconfig.ProcessWith(c.Context, &envconfig.Config{
		Target:   cfg,
		Lookuper: envconfig.PrefixLookuper(Prefix, Environ),
	}); err != nil {
		return fmt.Errorf("environment: %s", envName(reflect.TypeOf(cfg).Elem(), err.Error()))
	}
	return loadFlags(c, cfg)
}

// loadFlags copies the flags set on the command line into cfg's fields
// that name them, in nested structs too.
func loadFlags(c *cli.Context, cfg any) error {
	v := reflect.ValueOf(cfg).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		name, opt, _ := strings.Cut(v.Type().Field(i).Tag.Get("flag"), ",")
		if name == "" && f.Kind() == reflect.Struct {
			if err := loadFlags(c, f.Addr().Interface()); err != nil {
				return err
			}
			continue
		}
		if name == "" || !c.IsSet(name) {
			continue
		}
		switch p := f.Addr().Interface().(type) {
		case *string:
			*p = c.String(name)
		case *bool:
			*p = c.Bool(name)
		case *int:
			*p = c.Int(name)
		case *time.Duration:
			*p = c.Duration(name)
		case *[]string:
			*p = c.StringSlice(name)
			if opt == "split" {
				*p = splitList(*p)
			}
		default:
			panic(fmt.Sprintf("cliconfig.Load: field %s has type %s", v.Type().Field(i).Name, f.Type()))
		}
	}
	return nil
}

// envName rewrites go-envconfig's "Field: reason" (nested structs add a
// "Struct: " each) to name the variable.
func envName(t reflect.Type, msg string) string {
	field, rest, ok := strings.Cut(msg, ": ")
	f, found := t.FieldByName(field)
	switch {
	case !ok || !found:
		return msg
	case f.Type.Kind() == reflect.Struct:
		return envName(f.Type, rest)
	}
	key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
	return Prefix + key + ": " + rest
}

// splitList accepts both repeated flags and comma-separated values.
func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// Args renders the flags set on c's command line (but those in skip) as
// arguments for the same command in a child process, each value passed
// through edit.
func Args(c *cli.Context, edit func(name, value string) string, skip ...string) []string {
	var args []string
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if slices.Contains(skip, name) || !c.IsSet(name) {
			continue
		}
		var vs []string
		switch f.(type) {
		case *cli.IntFlag:
			vs = []string{fmt.Sprint(c.Int(name))}
		case *cli.BoolFlag:
			vs = []string{fmt.Sprint(c.Bool(name))}
		case *cli.DurationFlag:
			vs = []string{c.Duration(name).String()}
		case *cli.StringSliceFlag:
			vs = c.StringSlice(name)
		default:
			vs = []string{c.String(name)}
		}
		for _, v := range vs {
			args = append(args, "--"+name+"="+edit(name, v))
		}
	}
	return args
}

// Overlay is Environ with the flags set on c's command line over the
// variables their fields name (a field tagged `env:"OPERATOR"
// flag:"operator"` makes --operator answer for MCPCONFORM_OPERATOR), for
// every struct cfgs point to: the run's settings as one lookup, which a
// host reads its own from (hosts.Params.Environ). Values are rendered as
// the variables would be written (lists joined with commas).
func Overlay(c *cli.Context, cfgs ...any) envconfig.Lookuper {
	set := map[string]string{}
	for _, cfg := range cfgs {
		overlayFlags(c, reflect.TypeOf(cfg).Elem(), set)
	}
	return overlay{set: set, under: Environ}
}

func overlayFlags(c *cli.Context, t reflect.Type, set map[string]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("flag"), ",")
		if name == "" && f.Type.Kind() == reflect.Struct {
			overlayFlags(c, f.Type, set)
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("env"), ",")
		if name == "" || key == "" || !c.IsSet(name) {
			continue
		}
		var v string
		switch f.Type.Kind() {
		case reflect.Bool:
			v = fmt.Sprint(c.Bool(name))
		case reflect.Int:
			v = fmt.Sprint(c.Int(name))
		case reflect.Slice:
			v = strings.Join(c.StringSlice(name), ",")
		default:
			if f.Type == reflect.TypeFor[time.Duration]() {
				v = c.Duration(name).String()
			} else {
				v = c.String(name)
			}
		}
		set[Prefix+strings.TrimSpace(key)] = v
	}
}

// overlay answers from set first, then from under.
type overlay struct {
	set   map[string]string
	under envconfig.Lookuper
}

func (o overlay) Lookup(key string) (string, bool) {
	if v, ok := o.set[key]; ok {
		return v, true
	}
	return o.under.Lookup(key)
}

// Keys lists the keys of both (generic.Keyer), so env profiles defined
// in the environment are still found through the overlay.
func (o overlay) Keys() []string {
	seen := map[string]bool{}
	var out []string
	add := func(k string) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	for k := range o.set {
		add(k)
	}
	for _, k := range envkeys.Of(o.under) {
		add(k)
	}
	return out
}
