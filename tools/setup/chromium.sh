#!/usr/bin/env bash
# `npm test` runs this first (package.json "pretest"): the page tests drive Debian's Chromium
# through playwright-core, which downloads no browser. Where the browser is missing it is
# installed from Debian's packages; where that cannot be done, the run stops here at once with
# what to do, instead of failing the page tests after minutes of other tests.
set -euo pipefail

for candidate in "${CHROMIUM_PATH:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
  if [ -n "$candidate" ] && [ -x "$candidate" ]; then exit 0; fi
done

if [ -n "${CHROMIUM_PATH:-}" ]; then
  echo "npm test: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable file; point it at a Chromium or Chrome binary" >&2
  exit 1
fi

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "npm test: installing Debian's chromium package for the page tests (once per machine)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  exit 0
fi

echo "npm test needs Chromium for the page tests and cannot install it here (not root, or no apt-get):" >&2
echo "  install it (Debian/Ubuntu: sudo apt-get install chromium), or set CHROMIUM_PATH to a Chromium or Chrome binary" >&2
exit 1
