// Package audit holds the repository to its audits (docs/audit-*.md): its
// tests read the code and fail when something an audit rules on appears
// without the audit saying so. It has no code of its own.
package audit
