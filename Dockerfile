# Parasol's container image, on the same release tree as the .deb and the
# .rpm (scripts/build-release).
#   docker build -t parasol .
#   docker run -d -p 80:8080 -v parasol-data:/var/lib/parasol parasol
# The config is /etc/parasol/parasol.yml (mount your own over it);
# PARASOL_* environment variables override it.

FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN scripts/build-release --out /release

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/parasol --no-create-home \
      --shell /usr/sbin/nologin parasol \
 && install -d -o parasol -g parasol -m 0750 /var/lib/parasol
COPY --from=build /release /opt/parasol
COPY packaging/container/parasol.yml /etc/parasol/parasol.yml
USER parasol
WORKDIR /var/lib/parasol
VOLUME ["/var/lib/parasol"]
EXPOSE 8080
# The bundled Node answers the health check: the image needs no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["/opt/parasol/embedded/bin/node", "-e", "fetch(`http://127.0.0.1:${process.env.PARASOL_LISTEN_PORT ?? 8080}/api-umbrella/v1/health`, { headers: { 'user-agent': 'parasol-health' } }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: stop accepting, let in-flight requests finish, close the store, exit 0.
STOPSIGNAL SIGTERM
CMD ["/opt/parasol/bin/parasol", "serve"]
