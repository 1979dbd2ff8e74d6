# Imago: the two entry points are `make run ARGS="..."` and `make test`.
SWIFT ?= swift
ARGS ?= --help

.PHONY: bootstrap build run test lint format docs bench bench-server soak-isolation cluster fuzz deb deb-test image image-test clean

bootstrap:
	./scripts/bootstrap

build: bootstrap
	$(SWIFT) build -c release --product imago
	$(SWIFT) build -c release --product imago-fetch
	$(SWIFT) build -c release --product ImagoFaceDetector
	$(SWIFT) build -c release --product ImagoPDF

# Builds (release) and runs the imago tool: make run ARGS="info photo.jpg"
run: build
	.build/release/imago $(ARGS)

# Installs system packages, checks the format and licence headers, builds, and runs every test
# (unit, corpus conformance, CLI), then
# checks Imago as a dependency: the README's quick start built and run as printed, the examples,
# the documentation (scripts/check-as-dependency).
# Warnings in Imago's own targets are errors here (and so in CI); dependencies keep theirs.
# Built with the OTLP trait (IMAGO_TRAITS) and the compiler writing the documented targets' symbol
# graphs (IMAGO_SYMBOL_GRAPHS), so check-as-dependency's documentation reuses this build as it is.
test: export IMAGO_WARNINGS_AS_ERRORS := 1
test: export IMAGO_TRAITS := OTLP
test: export IMAGO_SYMBOL_GRAPHS := $(CURDIR)/.build/symbol-graphs
test: bootstrap lint
	$(SWIFT) build --build-tests --traits $(IMAGO_TRAITS)
	$(SWIFT) test --skip-build --traits $(IMAGO_TRAITS)
	./scripts/check-as-dependency

# The house style (.swift-format) and the licence header on every source file; `make format`
# applies both.
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Fuzz Examples/*/Sources Examples/*/Package.swift Benchmarks/Sources Benchmarks/Benchmarks Benchmarks/Package.swift Package.swift
	./scripts/check-headers

format:
	$(SWIFT) format format --in-place --recursive Sources Tests Fuzz Examples/*/Sources Examples/*/Package.swift Benchmarks/Sources Benchmarks/Benchmarks Benchmarks/Package.swift Package.swift
	./scripts/check-headers --fix

# The API reference of every library target with the articles of the Imago catalog, in
# .build/docs/Imago.doccarchive (scripts/docs; preview: DOCS_FLAGS=--transform-for-static-hosting;
# check-as-dependency passes --warnings-as-errors).
docs:
	IMAGO_TRAITS="$(IMAGO_TRAITS)" IMAGO_DOCS_BUILD="$(DOCS_BUILD)" ./scripts/docs $(DOCS_FLAGS)

# Benchmarks: decoding beside libjpeg-turbo/libpng/libwebp, Pillow and libvips; the memory
# cache beside NSCache and a locked dictionary (see README).
bench: bootstrap
	./scripts/bench-peers
	./scripts/bench-loading
	./scripts/bench-play
	./scripts/bench-server
	./scripts/bench-server --soak 60
	rm -f Benchmarks/.build/*/release/description.json  # see scripts/bench-peers: stale path-dependency sources
	$(SWIFT) build -c release --package-path Benchmarks --product imago-cache-bench
	$$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/imago-cache-bench
	$(SWIFT) build -c release --package-path Benchmarks --product imago-disk-bench
	$$($(SWIFT) build -c release --package-path Benchmarks --show-bin-path)/imago-disk-bench

bench-server: bootstrap
	./scripts/bench-server
	./scripts/bench-server --soak 60

# Issue 50's poison images under load at full length: 8 connections for 30 s while a worker
# crashes, aborts, loops and allocates 10 GB (scripts/soak-isolation; the server as the .deb builds it).
soak-isolation: bootstrap
	./scripts/soak-isolation

cluster: bootstrap
	./scripts/cluster $(ARGS)

# libFuzzer over Imago's own parsers and the coders' C glue, with address sanitising, each target
# for 60 seconds (scripts/fuzz; its own build in .build-fuzz): make fuzz FUZZ_ARGS="--seconds 300 url".
# `make test` replays the kept crash inputs (Fuzz/regressions) and runs every target briefly.
fuzz: bootstrap
	./scripts/fuzz $(FUZZ_ARGS)

# A Debian package of imago, imago-fetch and imago-server with the systemd units (static Swift
# runtime, the C libraries as dependencies), and its install into a fresh Debian 12 root.
deb: bootstrap
	./scripts/deb

deb-test: bootstrap
	./scripts/deb-install-test

# An OCI image of imago-server built with buildah from a Debian 12 root with that package
# installed (no registry; user 999, port 8080, read-only root), saved in bench-out/image
# (IMAGE_ARGS="--faces" adds OpenCV), and its test: podman runs it read-only, with runc, on
# 127.0.0.1, and asks it for images.
image: bootstrap
	./scripts/image $(IMAGE_ARGS)

image-test: bootstrap
	./scripts/image-test

clean:
	rm -rf .build .build-* Benchmarks/.build Examples/*/.build
