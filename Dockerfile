# Build a static, cgo-free binary, then run it as non-root on a minimal image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/web ./cmd/web \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/web /usr/local/bin/web
COPY --from=build --chown=65532:65532 /out/data /data
# SQLite database, generated cookie keys: keep them in a volume.
VOLUME ["/data"]
ENV CINEMA_ADDR=:8080 \
    CINEMA_DATA_DIR=/data
EXPOSE 8080
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/web"]
