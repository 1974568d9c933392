// Package generic is a browser host configured entirely by a profile.
package generic
