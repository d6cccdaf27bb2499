#!/usr/bin/env bash
# Checks out the icm-services commit that go.mod pins into interop/icm/.src (ignored), which
# go.mod's replace builds from: the Go module proxy this project reaches refuses
# github.com/ava-labs/icm-services. ICM_SERVICES_GIT names the repository to clone (a URL, a
# local clone or a bare mirror; default GitHub). Then `npm run bench -- --strategies icmServices`
# builds it (interop/icm/.build/). The checkout is never committed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=${ICM_SERVICES_GIT:-https://github.com/ava-labs/icm-services}
target=${ICM_SRC_DIR:-$here/.src}
version=$(grep -oE 'github\.com/ava-labs/icm-services v[^ ]+' "$here/go.mod" | head -n 1 | cut -d ' ' -f 2)
commit=${version##*-}
[ -n "$commit" ] || { echo "go.mod requires no pseudo-version of icm-services" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git clone --quiet --no-checkout "$repo" "$tmp/repo"
full=$(git -C "$tmp/repo" rev-parse --verify "$commit^{commit}")
mkdir "$tmp/src"
git -C "$tmp/repo" archive "$full" | tar -x -C "$tmp/src"
echo "$full" > "$tmp/src/.commit"
rm -rf "$target"
mv "$tmp/src" "$target"
echo "icm-services $full checked out in $target"
