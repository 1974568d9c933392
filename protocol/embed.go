package protocol

import _ "embed"

// TS is protocol.ts, embedded so the suite bundler can resolve the import
// "@mcpconform/protocol" without a Node toolchain.
//
//go:embed protocol.ts
var TS string
