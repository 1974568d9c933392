package bridge_test

import (
	"testing"

	"github.com/mcpconform/mcpconform/internal/testkit/e2etest"
)

// The browser tests skip by name where no Chromium is found (and fail with
// MCPCONFORM_REQUIRE_BROWSER=1), as in every other package: see e2etest.
func TestMain(m *testing.M) { e2etest.Main(m) }
