#!/bin/sh
# zinctun <-> GotaTun (Mullvad's boringtun fork: gotatun-cli at the version
# scripts/install-peers pins), each side initiating: lib_peer.sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
. "$(dirname "$0")/lib_peer.sh"
peer_interop gotatun
