#!/usr/bin/env bash
# Ensure Debian's Chromium is installed for the browser tests (Playwright drives it
# through executable_path; `playwright install` cannot download browsers here).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "browser: installing Debian's chromium (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
[ -x /usr/bin/chromium ] || { echo "browser: Chromium is missing: apt-get install -y chromium" >&2; exit 1; }
