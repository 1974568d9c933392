package browser

import (
	"net/url"
	"strings"
	"testing"
)

func TestRedactDropsCredentialsAndQuery(t *testing.T) {
	for in, want := range map[string]string{
		"ws://127.0.0.1:3000/":                            "ws://127.0.0.1:3000/",
		"wss://user:secret@browsers.example/pw?token=abc": "wss://browsers.example/pw?…",
		"http://127.0.0.1:9222#frag":                      "http://127.0.0.1:9222",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := redact(u); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIsLoopbackHost(t *testing.T) {
	for h, want := range map[string]bool{
		"127.0.0.1": true, "127.8.9.10": true, "::1": true, "localhost": true, "LOCALHOST": true, "pw.localhost": true,
		"10.0.0.1": false, "browser": false, "example.com": false, "localhost.example.com": false, "": false,
	} {
		if got := isLoopbackHost(h); got != want {
			t.Errorf("isLoopbackHost(%q) = %v", h, got)
		}
	}
}

func TestLaunchRefusesTwoRemoteEndpoints(t *testing.T) {
	_, err := Launch(Options{WSEndpoint: "ws://127.0.0.1:1/", CDPURL: "http://127.0.0.1:2"})
	if err == nil || !strings.Contains(err.Error(), "exclude each other") {
		t.Fatalf("got %v", err)
	}
	if _, err := Launch(Options{CDPURL: "127.0.0.1:9222"}); err == nil || !strings.Contains(err.Error(), "is not a URL") {
		t.Fatalf("an endpoint without a scheme: %v", err)
	}
}
