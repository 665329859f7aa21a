# The full Outpost agent: URL, DNS, TCP, ICMP and heartbeat monitors, and Playwright multistep checks,
# browser checks and check suites on Debian's chromium.
#
#   docker build --build-arg VERSION=$(node -p "require('./package.json').version") -t outpost-agent .
#
# BASE_IMAGE is any Debian bookworm image with Node 24 and npm: the official slim image by default;
# scripts/make-base-image builds an equivalent one where no registry can be reached.
ARG BASE_IMAGE=node:24-slim

# ---- the application: production dependencies and the check runtimes, installed and verified
FROM ${BASE_IMAGE} AS app
WORKDIR /app
ENV NODE_ENV=production \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY scripts/prune-node-modules scripts/
# Exactly the lockfile's versions, production dependencies only.
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
 && npm cache clean --force \
 && scripts/prune-node-modules full
COPY runtimes/ runtimes/
COPY scripts/install-runtimes scripts/
RUN scripts/install-runtimes && npm cache clean --force
COPY bin/ bin/
COPY src/ src/
COPY examples/ examples/
COPY scripts/require-node.mjs scripts/verify-runtimes.ts scripts/
RUN node scripts/verify-runtimes.ts /app/runtimes && node bin/outpost.mjs version

# ---- the image
FROM ${BASE_IMAGE}
# ping, traceroute and tcpdump get CAP_NET_RAW as a file capability and nothing else (no setuid bit,
# no root), so the non-root agent can run them:
# - ping: in the permitted set only. iputils ping raises it itself when it opens a raw socket, and
#   when the container has no NET_RAW at all (Kubernetes "restricted": drop ALL) it still starts and
#   uses unprivileged ICMP sockets where net.ipv4.ping_group_range allows the agent's group.
# - traceroute and tcpdump are not capability-aware: permitted and effective. They start only where
#   NET_RAW is in the container's capability set (Docker's default; Kubernetes: add NET_RAW); else
#   network diagnostics say they could not run. tcpdump needs no CAP_NET_ADMIN for our captures.
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      ca-certificates tini iputils-ping traceroute tcpdump libcap2-bin chromium fonts-liberation \
 && rm -rf /var/lib/apt/lists/* \
 && setcap cap_net_raw+p "$(readlink -f "$(command -v ping)")" \
 && for tool in traceroute tcpdump; do \
      setcap cap_net_raw+ep "$(readlink -f "$(command -v "$tool")")" || exit 1; \
    done \
 && for tool in ping traceroute tcpdump; do \
      bin="$(readlink -f "$(command -v "$tool")")" && chmod u-s "$bin" && getcap "$bin"; \
    done \
 && groupadd --gid 10001 outpost \
 && useradd --uid 10001 --gid 10001 --home-dir /home/outpost --create-home --shell /usr/sbin/nologin outpost \
 && mkdir -p /var/lib/outpost \
 && chown 10001:10001 /var/lib/outpost

COPY --from=app /app /app

ENV NODE_ENV=production \
    AGENT_FLAVOR=full \
    AGENT_DATA_DIR=/var/lib/outpost \
    AGENT_HEALTH_PORT=8081 \
    AGENT_HEARTBEAT_PORT=8082 \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    HOME=/home/outpost
WORKDIR /app
VOLUME /var/lib/outpost
EXPOSE 8081 8082
USER 10001:10001
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.AGENT_HEALTH_PORT||8081)+'/-/liveness').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini is PID 1: it forwards SIGTERM to the agent (which drains) and reaps what checks leave behind.
ENTRYPOINT ["tini", "--", "node", "/app/bin/outpost.mjs"]
# `agent`: with SERVICE_API_URL and API_KEY, jobs from the hub; without, standalone on the checks in
# /app/checks when mounted there, else the bundled examples (or `agent --checks <dir>`).
CMD ["agent"]

# Last, so that a new commit does not invalidate the layers above.
ARG VERSION=unknown
# scripts/build-images passes the repository URL (git remote) and commit.
ARG SOURCE=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.title="outpost-agent" \
      org.opencontainers.image.description="Outpost private-location monitoring agent (full: uptime monitors and Playwright checks)" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="Apache-2.0"
