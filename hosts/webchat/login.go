package webchat

import (
	"fmt"

	"github.com/mcpconform/mcpconform/hosts"
)

// LoginProfile loads the profile through getenv (the driver's own when
// nil) and returns what `mcpconform login` needs (hosts.LoginProfiler).
func (c *Chat) LoginProfile(getenv func(string) string) (hosts.Login, error) {
	if getenv == nil {
		getenv = c.getenv
	}
	p, err := LoadProfile(c.builtin, getenv)
	if err != nil {
		return hosts.Login{}, err
	}
	if p.LoginURL == "" || p.LoginURL == None {
		return hosts.Login{}, fmt.Errorf("%s is empty: no login page to open", p.Var("LoginURL"))
	}
	return hosts.Login{
		Product:         p.Product,
		DisplayName:     p.DisplayName,
		URL:             p.LoginURL,
		URLSource:       p.Source("LoginURL"),
		StorageStateVar: p.Var("StorageState"),
		StorageState:    p.StorageState,
		Domains:         append([]string(nil), p.AllowedHosts...),
	}, nil
}
