// Package cputime reads CPU time: the process's and the calling thread's. On a machine
// shared with other programs, wall time counts their turns on the cores as well; CPU
// time counts only this program's own work, so benchmarks and frame reports read it.
package cputime
