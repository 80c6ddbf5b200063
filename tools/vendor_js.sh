#!/usr/bin/env bash
# Vendor MathJax 3 from the npm registry into $1 (default _vendor/), so the built
# site typesets math with no network: pages load it from the site, not from a CDN.
# `npm pack` fetches one tarball (~6 MB) without installing its dependencies.
set -euo pipefail
dest=${1:-_vendor}
version=3.2.2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v npm >/dev/null; then
  echo "npm is needed to vendor MathJax (apt-get install -y npm)" >&2
  exit 1
fi
(cd "$tmp" && npm pack --silent "mathjax@$version" >/dev/null && tar xzf "mathjax-$version.tgz")
rm -rf "$dest/mathjax"
mkdir -p "$dest"
cp -r "$tmp/package/es5" "$dest/mathjax"
echo "vendored MathJax $version into $dest/mathjax"
