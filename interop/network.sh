#!/usr/bin/env bash
# npm run interop:network: builds what it needs, then starts a local avalanchego network with
# an L1 and prints one JSON line describing it once healthy. It stays up until SIGTERM/SIGINT,
# then stops its nodes and removes the network's directory. Extra arguments go to
# `interop network` (e.g. -start-timeout 15m).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh"
exec "$here/.build/interop" network \
  -avalanchego "$here/.build/avalanchego" \
  -plugin-dir "$here/.build/plugins" \
  -root-dir "${WARPGATE_INTEROP_ROOT:-$here/.networks}" \
  "$@"
