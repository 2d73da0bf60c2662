package main

import (
	"testing"

	"github.com/treadline/treadline/cmd/internal/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m) }
