#!/usr/bin/env bash
# Builds what the interop harness runs, from interop/go.mod (avalanchego and its graft modules
# at one release tag, fetched through the Go module proxy):
#   interop/.build/avalanchego                                   the node
#   interop/.build/plugins/srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy  subnet-evm (cmd/subnet-evm)
#   interop/.build/interop                                       our harness (network, verify)
#   interop/.build/contracts/*.json                              our Teleporter contracts (interop/contracts), compiled
#                                                                offline with npm's solc; the harness deploys them
# Go's build cache makes a second run quick. On failure it prints one line saying why (the
# full output stays in interop/.build/build.log) and exits non-zero.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$here/.build"
mkdir -p "$out/plugins"
say() { echo "interop: $*" >&2; }

if ! command -v go >/dev/null 2>&1; then
  say "Go is not installed (the interop tests build avalanchego v1.14.2 from source: install Go >= 1.25 and put it on PATH)"
  exit 1
fi

export CGO_ENABLED=1
# blst's portable build runs on any x86-64 CPU (CI machines vary); -pgo=off skips the second,
# profile-guided compile of avalanchego that would double a cold build.
export CGO_CFLAGS="${CGO_CFLAGS:--O2 -D__BLST_PORTABLE__}"
log="$out/build.log"
: >"$log"
build() {
  local output="$1" pkg="$2"
  if ! (cd "$here" && nice -n 10 go build -pgo=off -o "$output" "$pkg") >>"$log" 2>&1; then
    if grep -qE 'proxy\.golang\.org|GOPROXY|dial tcp|no such host|i/o timeout|connection refused|reading https?://|Could not resolve host|missing go.sum entry' "$log"; then
      say "cannot fetch Go modules through GOPROXY=$(go env GOPROXY): $(grep -m1 -E 'dial tcp|no such host|reading https?://|Could not resolve|timeout|refused|go.sum' "$log" | cut -c1-300) (full output: $log)"
    else
      say "building $pkg failed: $(grep -m1 -vE '^#|^go: downloading' "$log" | cut -c1-300) (full output: $log)"
    fi
    exit 1
  fi
}
started=$(date +%s)
build "$out/avalanchego" github.com/ava-labs/avalanchego/main
# subnet-evm's VM through cmd/subnet-evm rather than graft/subnet-evm/plugin: that plugin's
# runner exits when the open-files hard limit is below 32768 (see cmd/subnet-evm/main.go).
build "$out/plugins/srEXiWaHuhNyGwPUi444Tu47ZEDwxTWrbQiuD7FmgSAQ6X7Dy" ./cmd/subnet-evm
build "$out/interop" ./cmd/interop
# npm's solc (a devDependency: `npm ci` installs it), cached by a hash of the sources.
if ! (cd "$here/.." && node --import tsx interop/contracts/compile.ts "$out/contracts") 2>>"$log"; then
  say "$(grep -m1 '^interop: ' "$log" || echo "compiling interop/contracts failed") (full output: $log)"
  exit 1
fi
echo "interop: binaries ready in $out ($(( $(date +%s) - started )) s)" >&2
