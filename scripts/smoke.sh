#!/usr/bin/env bash
# Smoke test of a built binary: it answers --version and runs one `exec` turn against the
# scripted model server. Used by .ci/run and by the release workflow.
#
#   bash scripts/smoke.sh ./dist/dsh
set -euo pipefail
cd "$(dirname "$0")/.."
binary=$1

"$binary" --version
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT
cat >"$work/script.json" <<'JSON'
[{ "respond": { "stream": [{ "text": "smoke ok" }, { "finish": "stop" }] } }]
JSON
: >"$work/config.toml"
mkfifo "$work/url"
bun tests/support/serve-script.ts "$work/script.json" >"$work/url" </dev/null &
server_pid=$!
url=$(head -n 1 "$work/url" | sed -n 's/.*"url":"\([^"]*\)".*/\1/p')
answer=$(DSH_HOME="$work/home" DSH_CONFIG="$work/config.toml" DSH_BASE_URL="$url" DSH_API_KEY=smoke \
  "$binary" exec "say smoke" </dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; })
if [ "$answer" != "smoke ok" ]; then
  echo "smoke: dsh exec printed '$answer'" >&2
  cat "$work/stderr" >&2
  exit 1
fi
echo "smoke: dsh exec answered '$answer'"
