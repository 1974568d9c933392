package reference

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"

	"github.com/mcpconform/mcpconform/fixtures"
)

// ServeOptions are the settings of `mcpconform serve`: the fixture MCP
// servers and the reference host, running for use by hand.
type ServeOptions struct {
	// Listen is the reference host page's address (--listen), or with
	// PublicURL the fixture servers'; empty means 127.0.0.1:0.
	Listen string
	// Servers are MCP server URLs (Streamable HTTP) the reference host
	// connects to; empty starts the fixture servers.
	Servers []string
	// Defects and Variations name the host defects and variations to
	// switch on (ParseDefects, ParseVariations).
	Defects, Variations []string
	// PublicURL serves only the fixture servers, for a hosted product that
	// reaches them at this https URL; no reference host starts.
	PublicURL string
	// CSPTargets are the public origins of the CSP checks with PublicURL.
	CSPTargets []string
	// Warnf reports a setting that works but deserves a warning; nil
	// discards it.
	Warnf func(format string, args ...any)
}

// UsageError is a Serve error caused by its options rather than by
// starting anything.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Serve starts what o describes, prints the URLs to open (or the connector
// instructions with PublicURL) on w and runs until ctx is done. Errors in
// o are *UsageError; others are trouble starting.
func Serve(ctx context.Context, o ServeOptions, w io.Writer) error {
	warnf := o.Warnf
	if warnf == nil {
		warnf = func(string, ...any) {}
	}
	if o.PublicURL != "" {
		return servePublic(ctx, o, w, warnf)
	}
	if o.Listen != "" && !isLoopbackAddr(o.Listen) {
		warnf("--listen %s is not a loopback address: the reference host is reachable from other machines", o.Listen)
	}
	defects, err := ParseDefects(o.Defects)
	if err != nil {
		return &UsageError{err}
	}
	variations, err := ParseVariations(o.Variations)
	if err != nil {
		return &UsageError{err}
	}
	for _, u := range o.Servers {
		if p, err := url.Parse(u); err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return &UsageError{fmt.Errorf("--server %q is not an http(s) URL", u)}
		}
	}
	servers := o.Servers
	if len(servers) == 0 {
		fx, err := fixtures.Start(ctx)
		if err != nil {
			return err
		}
		defer fx.Close()
		servers = []string{fx.Main.URL, fx.Second.URL}
		fmt.Fprintf(w, "fixture MCP server:   %s\n", fx.Main.URL)
		fmt.Fprintf(w, "second MCP server:    %s\n", fx.Second.URL)
	}
	srv, err := NewServer(ctx, ServerOptions{MCPServers: servers, Listen: o.Listen, Defects: defects, Variations: variations})
	if err != nil {
		return err
	}
	defer srv.Close()
	fmt.Fprintf(w, "reference host:       %s/\n", srv.HostURL)
	fmt.Fprintf(w, "sandbox proxy origin: %s\n", srv.SandboxURL)
	fmt.Fprintf(w, "Open the host and type %q. Ctrl-C stops.\n", Prompt)
	<-ctx.Done()
	return nil
}

// servePublic runs the fixture servers for registration as a connector in
// a hosted product.
func servePublic(ctx context.Context, o ServeOptions, w io.Writer, warnf func(string, ...any)) error {
	if o.Listen != "" && !isLoopbackAddr(o.Listen) {
		warnf("--listen %s is not a loopback address: the fixture servers are reachable from other machines", o.Listen)
	}
	pub, err := fixtures.StartPublic(ctx, fixtures.PublicOptions{PublicURL: o.PublicURL, Listen: o.Listen, TargetOrigins: o.CSPTargets})
	if err != nil {
		if errors.Is(err, fixtures.ErrPublicOptions) {
			return &UsageError{err}
		}
		return err
	}
	defer pub.Close()
	fmt.Fprint(w, pub.Instructions())
	<-ctx.Done()
	return nil
}

// isLoopbackAddr reports whether a listen address stays on this machine.
func isLoopbackAddr(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListDefects prints the switchable defects and the requirement each
// breaks, as a table (serve --list-defects).
func ListDefects(w io.Writer) error {
	return listTable(w, "DEFECT\tBREAKS", Defects)
}

// ListVariations prints the legal variations and the spec sentence that
// allows each, as a table (serve --list-variations).
func ListVariations(w io.Writer) error {
	return listTable(w, "VARIATION\tALLOWED BY", Variations)
}
