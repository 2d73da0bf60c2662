# Shortcuts around scripts/; scripts/run and scripts/test are the canonical commands.
.PHONY: run test bench lint lab fuzz
run:
	scripts/run
test:
	scripts/test
lint:
	gofmt -l . && go vet ./... && staticcheck ./...
bench:
	go test -run='^$$' -bench=. -benchmem ./...
lab:
	go run ./cmd/drlab
