// Package docsync holds the tests that keep the docs true to the code: docs/architecture.md
// names every package and no package that does not exist, and the README's first screen says
// what the service is, shows each device and gives the two commands.
package docsync
