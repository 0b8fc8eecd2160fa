# Debian's nginx with Debian's nchan module (live push), as make stack runs them on Debian; the
# official nginx image cannot load Debian's module. envsubst (gettext-base) fills the template.
#   docker build -f deploy/nginx.Dockerfile -t roundhouse-nginx deploy
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends nginx libnginx-mod-nchan gettext-base \
 && rm -rf /var/lib/apt/lists/* \
 && ln -sf /dev/stderr /var/log/nginx/error.log
STOPSIGNAL SIGQUIT
EXPOSE 8080
