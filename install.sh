#!/bin/sh
# Install debate from a GitHub release, checked against its published SHA-256.
#
#   curl -fsSL https://github.com/debate-cli/debate/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --version 0.2.0 --dir /usr/local/bin
#
# Settings (an option beats the variable):
#   --version X.Y.Z   DEBATE_VERSION        default: the latest release
#   --dir DIR         DEBATE_INSTALL_DIR    default: $HOME/.local/bin
#                     DEBATE_DOWNLOAD_URL   the directory holding the release's files, for
#                        a mirror; default https://github.com/$DEBATE_REPOSITORY/releases/download/vX.Y.Z
#                        (.../releases/latest/download without a version)
#                     DEBATE_REPOSITORY     OWNER/REPO, default debate-cli/debate
#                     DEBATE_TARGET         a target triple instead of this machine's
#                     DEBATE_ATTESTATION    auto (default): also `gh attestation verify` the
#                        archive when gh is installed and logged in; require: refuse without
#                        it; skip: the checksum only
#
# Exit status: 0 installed; 1 refused or failed (nothing installed); 2 bad usage;
# 3 no release file for this platform or version (404): build it from source instead,
#   cargo install debate-cli --locked
set -eu

say() { printf 'install.sh: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
usage() { say "$*"; exit 2; }

repository="${DEBATE_REPOSITORY:-debate-cli/debate}"
version="${DEBATE_VERSION:-}"
dir="${DEBATE_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}"
attestation="${DEBATE_ATTESTATION:-auto}"

while [ $# -gt 0 ]; do
    case "$1" in
        --version) [ $# -ge 2 ] || usage "--version needs a value"; version="$2"; shift 2 ;;
        --version=*) version="${1#*=}"; shift ;;
        --dir) [ $# -ge 2 ] || usage "--dir needs a value"; dir="$2"; shift 2 ;;
        --dir=*) dir="${1#*=}"; shift ;;
        -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0" 2>/dev/null || true; exit 0 ;;
        *) usage "unknown argument: $1" ;;
    esac
done
version="${version#v}"
# The version goes into a URL: digits and dots, and a pre-release's letters, nothing else.
case "$version" in
    *[!0-9A-Za-z.+-]*) usage "not a version: $version" ;;
    '' | [0-9]*.[0-9]*.[0-9]*) ;;
    *) usage "not a version: $version" ;;
esac
case "$attestation" in
    auto | require | skip) ;;
    *) usage "DEBATE_ATTESTATION is auto, require or skip, not $attestation" ;;
esac

detect_target() {
    os=$(uname -s)
    arch=$(uname -m)
    case "$arch" in
        x86_64 | amd64) arch=x86_64 ;;
        aarch64 | arm64) arch=aarch64 ;;
        *) return 1 ;;
    esac
    case "$os" in
        Linux) echo "$arch-unknown-linux-musl" ;; # static: any libc, any distribution
        Darwin)
            # A shell under Rosetta says x86_64 on Apple silicon: take the native build.
            if [ "$arch" = x86_64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || echo 0)" = 1 ]; then
                arch=aarch64
            fi
            echo "$arch-apple-darwin"
            ;;
        *) return 1 ;;
    esac
}

target="${DEBATE_TARGET:-}"
if [ -z "$target" ]; then
    target=$(detect_target) || {
        say "no prebuilt debate for $(uname -s) $(uname -m); build it from source: cargo install debate-cli --locked"
        exit 3
    }
fi
archive="debate-$target.tar.gz"

if [ -n "${DEBATE_DOWNLOAD_URL:-}" ]; then
    base="${DEBATE_DOWNLOAD_URL%/}"
elif [ -n "$version" ]; then
    base="https://github.com/$repository/releases/download/v$version"
else
    base="https://github.com/$repository/releases/latest/download"
fi
case "$base" in
    https://*) ;;
    *) say "warning: $base is not https: the checksum comes from the same place as the file" ;;
esac

# fetch URL FILE: 0 fetched, 3 not found (404), 1 any other failure.
fetch() {
    url=$1
    file=$2
    if command -v curl >/dev/null 2>&1; then
        case "$url" in https://*) set -- --proto =https --tlsv1.2 ;; *) set -- ;; esac
        code=$(curl -sSL --retry 3 "$@" -o "$file" -w '%{http_code}' "$url") || code=${code:-000}
        case "$code" in
            2??) return 0 ;;
            404) return 3 ;;
            *) say "downloading $url failed (HTTP $code)"; return 1 ;;
        esac
    elif command -v wget >/dev/null 2>&1; then
        if headers=$(wget -q -S -O "$file" "$url" 2>&1); then return 0; fi
        case "$headers" in *" 404 "*) return 3 ;; esac
        say "downloading $url failed"
        return 1
    else
        die "needs curl or wget"
    fi
}

sha256_of() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d ' ' -f 1
    elif command -v shasum >/dev/null 2>&1; then
        shasum -a 256 "$1" | cut -d ' ' -f 1
    elif command -v openssl >/dev/null 2>&1; then
        openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
    else
        die "needs sha256sum, shasum or openssl to check the download"
    fi
}

tmp=$(mktemp -d 2>/dev/null || mktemp -d -t debate-install)
partial=""
trap 'rm -rf "$tmp"; [ -z "$partial" ] || rm -f "$partial"' EXIT
trap 'exit 1' HUP INT TERM

say "downloading $base/$archive"
status=0
fetch "$base/$archive" "$tmp/$archive" || status=$?
if [ "$status" -eq 3 ]; then
    say "no $archive at $base (no release for this platform or version): cargo install debate-cli --locked${version:+ --version =$version}"
    exit 3
fi
[ "$status" -eq 0 ] || exit 1
status=0
fetch "$base/$archive.sha256" "$tmp/$archive.sha256" || status=$?
[ "$status" -eq 0 ] || die "no checksum $archive.sha256 at $base: refusing to install"

# One line, "<sha256>  <archive name>" ("*" before the name in binary mode): the name must
# be this archive's, or a mirror could serve another file with that file's checksum.
expected=""
named=""
read -r expected named _ <"$tmp/$archive.sha256" || true
expected=$(printf '%s' "$expected" | tr 'A-F' 'a-f')
case "$expected" in
    *[!0-9a-f]* | '') die "$archive.sha256 holds no SHA-256: refusing to install" ;;
esac
[ ${#expected} -eq 64 ] || die "$archive.sha256 holds no SHA-256: refusing to install"
[ "${named#\*}" = "$archive" ] ||
    die "$archive.sha256 is the checksum of ${named:-no named file}, not $archive: refusing to install"
actual=$(sha256_of "$tmp/$archive")
if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $archive: expected $expected, got $actual; nothing was installed"
fi
say "checksum ok ($actual)"

if [ "$attestation" != skip ]; then
    if command -v gh >/dev/null 2>&1 && { [ -n "${GH_TOKEN:-}${GITHUB_TOKEN:-}" ] || gh auth status >/dev/null 2>&1; }; then
        gh attestation verify "$tmp/$archive" --repo "$repository" \
            --signer-workflow "$repository/.github/workflows/release.yml" >/dev/null ||
            die "gh attestation verify failed for $archive: nothing was installed"
        say "build provenance verified ($repository, release.yml)"
    elif [ "$attestation" = require ]; then
        die "DEBATE_ATTESTATION=require, but gh is not installed or not logged in"
    fi
fi

# Only the binary comes out of the archive, and only as one regular file: no entry may
# reach outside the archive's root, and `debate` must be there exactly once.
members=$(tar -tzf "$tmp/$archive") || die "$archive cannot be read as a .tar.gz: refusing to install"
binary=""
count=0
while IFS= read -r member; do
    case "/$member/" in
        //* | */../*) die "$archive has an entry outside its root ($member): refusing to install" ;;
    esac
    name=${member#./}
    if [ "${name%/}" = debate ]; then
        binary=$member
        count=$((count + 1))
    fi
done <<MEMBERS
$members
MEMBERS
[ "$count" -gt 0 ] || die "$archive has no debate at its top level"
[ "$count" -eq 1 ] || die "$archive holds debate $count times: refusing to install"
mkdir "$tmp/unpacked"
tar -xzf "$tmp/$archive" -C "$tmp/unpacked" "$binary" 2>/dev/null ||
    die "the debate in $archive cannot be unpacked as a file: refusing to install"
unpacked="$tmp/unpacked/debate"
if [ -L "$unpacked" ]; then
    die "the debate in $archive is a symbolic link: refusing to install"
elif [ -d "$unpacked" ]; then
    die "the debate in $archive is a directory: refusing to install"
elif [ ! -f "$unpacked" ]; then
    die "the debate in $archive is not a regular file: refusing to install"
fi

# Never over a directory (mv would move the binary into it).
if [ -d "$dir/debate" ]; then
    die "$dir/debate is a directory: refusing to replace it; nothing was installed"
fi
mkdir -p "$dir"
# Written beside the old one, under a name nobody else has, and renamed over it: never
# a half-written debate.
partial=$(mktemp "$dir/.debate.XXXXXX") || die "cannot write in $dir"
cat "$unpacked" >"$partial"
chmod 755 "$partial"
mv -f "$partial" "$dir/debate"
partial=""
say "installed $dir/debate${version:+ ($version)}"

case ":${PATH:-}:" in
    *":$dir:"*) ;;
    *) say "$dir is not on your PATH; add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
