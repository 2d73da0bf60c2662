#!/usr/bin/env bash
# Installs what Treadline needs to build, test and run on Debian, or says exactly what
# is missing. Sourced by scripts/run and scripts/test; safe to run again.
set -euo pipefail

need_go="1.26"
debs=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev libopenal-dev libvorbis-dev xvfb xauth)
# What the fleet tests run the image and the metrics through where they can (scripts/test
# asks for them with TREADLINE_TEST=1): runc and umoci run the image as a pod would,
# Prometheus' promtool lints /metrics; tshark (Wireshark's DIS dissector) and node with npm
# (which fetches Open-DIS into the user's cache on first use) check the DIS gateway's PDUs.
# Without them those tests skip, saying so.
test_debs=(runc umoci prometheus tshark nodejs npm)
staticcheck_version="v0.7.0"

die() { echo "treadline: $*" >&2; exit 1; }

# Go: the toolchain itself is not in Debian at the needed version.
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  else
    die "Go $need_go or newer is required and was not found (install it from go.dev/dl into /usr/local/go)."
  fi
fi
have_go=$(go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -n1)" != "$need_go" ]; then
  die "Go $need_go or newer is required; found $have_go."
fi

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${debs[@]}"; do
  installed "$p" || missing+=("$p")
done
# A test tool counts as there when its command is, whichever package brought it (node
# from another repository carries its own npm, which Debian's npm package conflicts with).
tool_of() {
  case "$1" in
    nodejs) echo node ;;
    prometheus) echo promtool ;;
    *) echo "$1" ;;
  esac
}
missing_test=()
if [ "${TREADLINE_TEST:-}" = 1 ]; then
  for p in "${test_debs[@]}"; do
    installed "$p" || command -v "$(tool_of "$p")" >/dev/null 2>&1 || missing_test+=("$p")
  done
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  sudo="none"
fi

# apt-get waits on the network and the disk: while it installs, a caller that defines
# while_installing (scripts/test) has it fill the processors with work that needs none
# of the packages (downloading modules, building staticcheck and the dependencies that
# need no C headers), and waits for it after. staticcheck is built there too, when missing.
warming=""
if [ "$sudo" != none ] && { [ ${#missing[@]} -gt 0 ] || [ ${#missing_test[@]} -gt 0 ]; } &&
  declare -F while_installing >/dev/null; then
  GOBIN_DIR="$(go env GOPATH)/bin"
  { set +e # a step that fails leaves its work to the suite, and the next steps go on
    [ -x "$GOBIN_DIR/staticcheck" ] || go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version"
    while_installing; } >/dev/null 2>&1 &
  warming=$!
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "treadline: installing Debian packages: ${missing[*]}" >&2
  if [ "$sudo" = none ]; then
    die "missing Debian packages: ${missing[*]}. Install them as root: apt-get install ${missing[*]}"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq || die "apt-get update failed; install by hand: ${missing[*]}"
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
fi
# The test tools: without them the tests that need them skip, saying so, so a tool that
# cannot be installed is told and the suite goes on.
if [ ${#missing_test[@]} -gt 0 ]; then
  if [ "$sudo" = none ]; then
    echo "treadline: not installed: ${missing_test[*]}; the tests that need them will skip (as root: apt-get install ${missing_test[*]})" >&2
  else
    echo "treadline: installing test tools: ${missing_test[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    if ! { $sudo apt-get update -qq && $sudo apt-get install -y -qq --no-install-recommends "${missing_test[@]}" >/dev/null; }; then
      for p in "${missing_test[@]}"; do # one at a time: one that cannot be had spoils none of the others
        $sudo apt-get install -y -qq --no-install-recommends "$p" >/dev/null 2>&1 \
          || echo "treadline: could not install $p; the tests that need it will skip" >&2
      done
    fi
  fi
fi

# What the work beside the installs could not do (a download that failed, a package
# that needs the new headers) is done again where it is needed.
if [ -n "$warming" ]; then wait "$warming" || true; fi
GOBIN_DIR="$(go env GOPATH)/bin"
export PATH="$GOBIN_DIR:$PATH"
if ! command -v staticcheck >/dev/null 2>&1; then
  echo "treadline: installing staticcheck $staticcheck_version" >&2
  go install "honnef.co/go/tools/cmd/staticcheck@$staticcheck_version" \
    || die "could not install staticcheck $staticcheck_version from the Go module proxy"
fi
