# The resilcheck image: the static binary on an empty base.
#
# It copies a binary built on the host, so it needs no base image from a
# registry (CGO_ENABLED=0 makes it static; the SQLite driver is pure Go):
#
#   CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o bin/resilcheck ./cmd/resilcheck
#   docker build -t resilcheck .
#
# The same image runs the reference stack's components (examples/compose).
FROM scratch
# A scratch image has no /tmp; the reference service and certify make
# temporary directories there. WORKDIR creates it (and /work, for mounts).
WORKDIR /tmp
WORKDIR /work
COPY bin/resilcheck /usr/local/bin/resilcheck
ENTRYPOINT ["/usr/local/bin/resilcheck"]
CMD ["--help"]
