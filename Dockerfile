# The resilcheck image: the static binaries on an empty base.
#
# It copies binaries built on the host, so it needs no base image from a
# registry (build them first, CGO_ENABLED=0 makes them static; the SQLite
# driver is pure Go):
#
#   CGO_ENABLED=0 go build -o bin/resilcheck ./cmd/resilcheck
#   CGO_ENABLED=0 go -C compose/engine build -o ../../bin/resilcheck-compose ./cmd/resilcheck-compose
#   docker build -t resilcheck .
#
# The same image runs the reference stack's components (examples/compose).
FROM scratch
# A scratch image has no /tmp; the reference service and certify make
# temporary directories there. WORKDIR creates it (and /work, for mounts).
WORKDIR /tmp
WORKDIR /work
COPY bin/resilcheck bin/resilcheck-compose /usr/local/bin/
ENTRYPOINT ["/usr/local/bin/resilcheck"]
CMD ["--help"]
