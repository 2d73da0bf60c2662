# tankhost, Treadline's headless match host, on an empty base: the same image
# scripts/image builds without a container engine (a static binary at /tankhost, the
# maps at /assets/maps, uid 65532 with an empty home at /home/tankhost).
#
#   docker build -t treadline/tankhost:dev .
#   docker run --rm -p 7777:7777/udp -p 9100:9100 treadline/tankhost:dev -listen :7777 -metrics :9100

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG TARGETARCH
RUN CGO_ENABLED=0 GOOS=linux GOARCH=${TARGETARCH:-amd64} go build -trimpath -ldflags='-s -w' -o /out/tankhost ./cmd/tankhost
RUN mkdir -p /out/home

FROM scratch
COPY --from=build /out/tankhost /tankhost
COPY assets/maps /assets/maps
COPY --from=build --chown=65532:65532 /out/home /home/tankhost
ENV HOME=/home/tankhost
WORKDIR /
USER 65532:65532
EXPOSE 7777/udp 9100/tcp
ENTRYPOINT ["/tankhost"]
CMD ["-listen", ":7777"]
