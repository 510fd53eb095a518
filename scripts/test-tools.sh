#!/usr/bin/env bash
# Ensure the Debian packages the tests drive are installed: Chromium for the browser
# tests (Playwright uses it through executable_path; `playwright install` cannot
# download browsers here), GNU gettext (makemessages, for the catalog check), a compose client to validate docker-compose.yml (no
# Docker engine runs here), and nginx for the stack (make stack, the
# fault tests). Installs them with apt-get when run as root.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v xgettext >/dev/null 2>&1 || missing+=(gettext)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
if ! command -v docker-compose >/dev/null 2>&1 && ! docker compose version >/dev/null 2>&1; then
    missing+=(docker-compose)
fi
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "test tools: installing ${missing[*]} (apt-get)"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
[ -x /usr/bin/chromium ] || { echo "test tools: Chromium is missing: apt-get install -y chromium" >&2; exit 1; }
command -v xgettext >/dev/null 2>&1 \
    || { echo "test tools: GNU gettext is missing (the catalog check runs makemessages): apt-get install -y gettext" >&2; exit 1; }
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] \
    || { echo "test tools: nginx is missing: apt-get install -y nginx-light" >&2; exit 1; }

command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 \
    || { echo "test tools: no compose client: apt-get install -y docker-compose" >&2; exit 1; }
