# The resilcheck image: the static binaries on an empty base.
#
# It copies binaries built on the host, so it needs no base image from a
# registry (CGO_ENABLED=0 makes them static; the SQLite driver is pure Go):
#
#   CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o bin/resilcheck ./cmd/resilcheck
#   CGO_ENABLED=0 go -C compose/engine build -trimpath -ldflags='-s -w' -o ../../bin/resilcheck-compose ./cmd/resilcheck-compose
#   docker build -t resilcheck .
#
# The second binary is optional: with it, the image certifies kind compose
# targets too (given the engine's socket; see README.md). BIN names another
# directory of binaries, as the release workflow does for each platform.
#
# The same image runs the reference stack's components (examples/compose).
FROM scratch
ARG BIN=bin
# A scratch image has no /tmp; the reference service and certify make
# temporary directories there. WORKDIR creates it (and /work, for mounts).
WORKDIR /tmp
WORKDIR /work
# The pattern matches resilcheck, and resilcheck-compose when it was built.
COPY ${BIN}/resilcheck* /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/resilcheck"]
CMD ["--help"]
