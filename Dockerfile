# The vbench image: the static vbench binary on distroless, run as its
# nonroot user (uid/gid 65532). vbench k8s's manifests use it:
#
#	docker build -t vbench:$(go run ./cmd/vbench version | cut -d' ' -f2) .
#
# The entrypoint is vbench, so a container's args are a vbench command line
# ("run", "/etc/vbench/scenario.json", "--shard", ...).

FROM golang:1.26 AS build
WORKDIR /src
# The modules first, so that a change of source reuses their layer.
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/vbench ./cmd/vbench

# static-debian12 has CA certificates (for https targets and the Hub),
# /etc/passwd with nonroot, and a writable /tmp; no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/vbench /vbench
USER nonroot:nonroot
ENTRYPOINT ["/vbench"]
