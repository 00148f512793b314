#!/bin/sh
# Installs the dsh binary: detects the OS and CPU, downloads the release archive, checks its
# SHA-256, and puts `dsh` in ~/.local/bin (or DSH_INSTALL_DIR, or the first argument).
#
#   curl -fsSL https://github.com/dsh-agent/dsh/releases/latest/download/install.sh | sh
#
# DSH_VERSION=0.2.0 picks a release (default: the latest); DSH_DOWNLOAD_BASE overrides where
# archives come from (a mirror, or a local server in tests).
set -eu

repository="https://github.com/dsh-agent/dsh" # from package.json "repository"; rewritten at release

fail() {
  echo "dsh install: $*" >&2
  exit 1
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no prebuilt dsh for $(uname -s); install Bun and run: bunx dsh" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) fail "no prebuilt dsh for the $(uname -m) CPU; install Bun and run: bunx dsh" ;;
esac
target="$os-$cpu"
# Alpine and other musl systems get the musl build.
if [ "$os" = linux ] && { [ -e /lib/ld-musl-x86_64.so.1 ] || [ -e /lib/ld-musl-aarch64.so.1 ]; }; then
  target="$target-musl"
fi
archive="dsh-$target.tar.gz"

if [ -n "${DSH_DOWNLOAD_BASE:-}" ]; then
  base=$DSH_DOWNLOAD_BASE
elif [ -n "${DSH_VERSION:-}" ]; then
  base="$repository/releases/download/v$DSH_VERSION"
else
  base="$repository/releases/latest/download"
fi
dir=${1:-${DSH_INSTALL_DIR:-$HOME/.local/bin}}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL "$1" -o "$2"
  elif command -v wget >/dev/null 2>&1; then
    wget -q "$1" -O "$2"
  else
    fail "needs curl or wget"
  fi
}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    fail "needs sha256sum or shasum to check the download"
  fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "downloading $base/$archive"
download "$base/$archive" "$work/$archive" || fail "could not download $base/$archive"
download "$base/$archive.sha256" "$work/$archive.sha256" || fail "could not download the checksum of $archive"
expected=$(cut -d ' ' -f 1 <"$work/$archive.sha256")
actual=$(sha256 "$work/$archive")
[ "$expected" = "$actual" ] || fail "checksum mismatch for $archive (expected $expected, got $actual); nothing was installed"
tar -xzf "$work/$archive" -C "$work"
[ -f "$work/dsh" ] || fail "$archive holds no dsh executable"
mkdir -p "$dir"
mv -f "$work/dsh" "$dir/dsh"
chmod 755 "$dir/dsh"
echo "installed $("$dir/dsh" --version | head -n 1) to $dir/dsh"
case ":$PATH:" in
  *":$dir:"*) ;;
  *) echo "add $dir to your PATH, e.g.: echo 'export PATH=\"$dir:\$PATH\"' >> ~/.profile" ;;
esac
