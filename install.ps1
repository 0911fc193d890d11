# Install debate on Windows from a GitHub release, checked against its published SHA-256.
#
#   powershell -ExecutionPolicy Bypass -c "irm https://github.com/debate-cli/debate/releases/latest/download/install.ps1 | iex"
#   & .\install.ps1 -Version 0.2.0 -InstallDir C:\tools\bin
#
# The same contract as install.sh, for the archive the release workflow publishes:
# debate-x86_64-pc-windows-gnu.zip with debate.exe at its top level, and its .sha256
# (one line naming that archive). It installs one regular file: an archive whose
# debate.exe is a link, a directory, there twice or outside the archive's root is
# refused, a directory is never replaced, and the exe is written beside the old one and
# moved over it.
#
# Settings (a parameter beats the variable):
#   -Version X.Y.Z    $env:DEBATE_VERSION       default: the latest release
#   -InstallDir DIR   $env:DEBATE_INSTALL_DIR   default: $HOME\.local\bin
#                     $env:DEBATE_DOWNLOAD_URL  the directory holding the release's files (a mirror)
#                     $env:DEBATE_REPOSITORY    OWNER/REPO, default debate-cli/debate
#                     $env:DEBATE_ATTESTATION   auto (default) | require | skip, as install.sh
#
# Exit status: 0 installed; 1 refused or failed (nothing installed); 2 bad usage;
# 3 no release file for this version (404).
[CmdletBinding()]
param(
    [string]$Version = $env:DEBATE_VERSION,
    [string]$InstallDir = $env:DEBATE_INSTALL_DIR
)
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue' # Invoke-WebRequest is many times slower with it
Set-StrictMode -Version 3.0

$Repository = if ($env:DEBATE_REPOSITORY) { $env:DEBATE_REPOSITORY } else { 'debate-cli/debate' }
$Attestation = if ($env:DEBATE_ATTESTATION) { $env:DEBATE_ATTESTATION } else { 'auto' }

function Say([string]$Message) { [Console]::Error.WriteLine("install.ps1: $Message") }
function Quit([int]$Code, [string]$Message) { Say $Message; exit $Code }

if ($Version) { $Version = $Version.TrimStart('v') }
# The version goes into a URL: digits and dots, and a pre-release's letters, nothing else.
if ($Version -and $Version -notmatch '^\d+\.\d+\.\d+[0-9A-Za-z.+-]*$') { Quit 2 "not a version: $Version" }
if ($Attestation -notin @('auto', 'require', 'skip')) { Quit 2 "DEBATE_ATTESTATION is auto, require or skip, not $Attestation" }
if (-not $InstallDir) { $InstallDir = Join-Path $HOME '.local\bin' }

# Only an x86_64 build is published; Windows on Arm runs it under emulation.
$arch = $env:PROCESSOR_ARCHITEW6432
if (-not $arch) { $arch = $env:PROCESSOR_ARCHITECTURE }
if ($arch -notin @('AMD64', 'ARM64')) { Quit 3 "no prebuilt debate for $arch; build it from source: cargo install debate-cli --locked" }
if ($arch -eq 'ARM64') { Say 'Windows on Arm: installing the x86_64 build (it runs emulated)' }
$target = 'x86_64-pc-windows-gnu'
$archive = "debate-$target.zip"

if ($env:DEBATE_DOWNLOAD_URL) { $base = $env:DEBATE_DOWNLOAD_URL.TrimEnd('/') }
elseif ($Version) { $base = "https://github.com/$Repository/releases/download/v$Version" }
else { $base = "https://github.com/$Repository/releases/latest/download" }
if (-not $base.StartsWith('https://')) { Say "warning: $base is not https: the checksum comes from the same place as the file" }

# Older Windows PowerShell defaults to TLS 1.0.
try { [Net.ServicePointManager]::SecurityProtocol = [Net.ServicePointManager]::SecurityProtocol -bor [Net.SecurityProtocolType]::Tls12 } catch { }

# Returns 0 fetched, 3 not found (404), 1 any other failure.
function Fetch([string]$Url, [string]$File) {
    try {
        Invoke-WebRequest -Uri $Url -OutFile $File -UseBasicParsing
        return 0
    } catch {
        $status = $null
        if ($_.Exception.PSObject.Properties['Response'] -and $_.Exception.Response) {
            $status = [int]$_.Exception.Response.StatusCode
        }
        if ($status -eq 404) { return 3 }
        Say "downloading $Url failed: $($_.Exception.Message)"
        return 1
    }
}

$tmp = Join-Path ([IO.Path]::GetTempPath()) ("debate-install-" + [Guid]::NewGuid().ToString('N'))
New-Item -ItemType Directory -Path $tmp | Out-Null
$partial = $null
try {
    Say "downloading $base/$archive"
    $zip = Join-Path $tmp $archive
    $got = Fetch "$base/$archive" $zip
    if ($got -eq 3) { Quit 3 "no $archive at $base (no release for this version): cargo install debate-cli --locked" }
    if ($got -ne 0) { exit 1 }
    $sumFile = Join-Path $tmp "$archive.sha256"
    if ((Fetch "$base/$archive.sha256" $sumFile) -ne 0) { Quit 1 "no checksum $archive.sha256 at $base: refusing to install" }

    # "<sha256>  <archive name>": the name must be this archive's, or a mirror could serve
    # another file with that file's checksum.
    $fields = @(((Get-Content -LiteralPath $sumFile -TotalCount 1) -as [string]).Trim() -split '\s+')
    $expected = $fields[0].ToLowerInvariant()
    if ($expected -notmatch '^[0-9a-f]{64}$') { Quit 1 "$archive.sha256 holds no SHA-256: refusing to install" }
    $named = if ($fields.Count -ge 2) { $fields[1].TrimStart('*') } else { '' }
    if ($named -ne $archive) { Quit 1 "$archive.sha256 is the checksum of $(if ($named) { $named } else { 'no named file' }), not ${archive}: refusing to install" }
    $actual = (Get-FileHash -LiteralPath $zip -Algorithm SHA256).Hash.ToLowerInvariant()
    if ($actual -ne $expected) { Quit 1 "checksum mismatch for ${archive}: expected $expected, got $actual; nothing was installed" }
    Say "checksum ok ($actual)"

    if ($Attestation -ne 'skip') {
        $gh = Get-Command gh -ErrorAction SilentlyContinue
        $loggedIn = $false
        if ($gh) {
            if ($env:GH_TOKEN -or $env:GITHUB_TOKEN) { $loggedIn = $true }
            else { & gh auth status *> $null; $loggedIn = ($LASTEXITCODE -eq 0) }
        }
        if ($gh -and $loggedIn) {
            & gh attestation verify $zip --repo $Repository --signer-workflow "$Repository/.github/workflows/release.yml" | Out-Null
            if ($LASTEXITCODE -ne 0) { Quit 1 "gh attestation verify failed for ${archive}: nothing was installed" }
            Say "build provenance verified ($Repository, release.yml)"
        } elseif ($Attestation -eq 'require') {
            Quit 1 'DEBATE_ATTESTATION=require, but gh is not installed or not logged in'
        }
    }

    # Only debate.exe comes out of the archive, read entry by entry (never Expand-Archive):
    # no entry may reach outside the archive's root, and debate.exe must be there once,
    # as a file (not a directory, not a link, which a zip marks in its Unix mode).
    Add-Type -AssemblyName System.IO.Compression.FileSystem
    $dest = Join-Path $InstallDir 'debate.exe'
    if (Test-Path -LiteralPath $dest -PathType Container) { Quit 1 "$dest is a directory: refusing to replace it; nothing was installed" }
    $reading = [IO.Compression.ZipFile]::OpenRead($zip)
    try {
        $found = @()
        foreach ($entry in $reading.Entries) {
            $name = $entry.FullName -replace '\\', '/'
            if ($name.StartsWith('/') -or $name -match '^[A-Za-z]:' -or ('/' + $name + '/') -match '/\.\./') {
                Quit 1 "$archive has an entry outside its root ($($entry.FullName)): refusing to install"
            }
            if ($name.StartsWith('./')) { $name = $name.Substring(2) }
            if ($name.TrimEnd('/') -eq 'debate.exe') { $found += $entry }
        }
        if ($found.Count -eq 0) { Quit 1 "$archive has no debate.exe at its top level" }
        if ($found.Count -gt 1) { Quit 1 "$archive holds debate.exe $($found.Count) times: refusing to install" }
        $entry = $found[0]
        if ($entry.FullName.EndsWith('/') -or $entry.FullName.EndsWith('\')) { Quit 1 "the debate.exe in $archive is a directory: refusing to install" }
        if ((($entry.ExternalAttributes -shr 16) -band 0xF000) -eq 0xA000) { Quit 1 "the debate.exe in $archive is a symbolic link: refusing to install" }

        New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
        # Written beside the old one, under a name nobody else has, and moved over it:
        # never a half-written debate.exe. (A running debate.exe cannot be replaced on
        # Windows: the move then fails and the old one stays.)
        $partial = Join-Path $InstallDir (".debate.exe." + [Guid]::NewGuid().ToString('N') + '.partial')
        [IO.Compression.ZipFileExtensions]::ExtractToFile($entry, $partial, $false)
    } finally {
        $reading.Dispose()
    }
    if (Test-Path -LiteralPath $dest) {
        $item = Get-Item -LiteralPath $dest -Force
        if ($item.Attributes -band [IO.FileAttributes]::ReparsePoint) { Quit 1 "$dest is a link or junction: refusing to replace it; nothing was installed" }
        [IO.File]::Replace($partial, $dest, $null)
    } else {
        [IO.File]::Move($partial, $dest)
    }
    $partial = $null
    Say "installed $dest$(if ($Version) { " ($Version)" })"

    $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    $onPath = @(($env:Path -split ';') + (($userPath -as [string]) -split ';')) -contains $InstallDir
    if (-not $onPath) {
        Say "$InstallDir is not on your PATH; add it with:"
        Say "  [Environment]::SetEnvironmentVariable('Path', `"$InstallDir;`" + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
    }
} finally {
    if ($partial) { Remove-Item -LiteralPath $partial -Force -ErrorAction SilentlyContinue }
    Remove-Item -LiteralPath $tmp -Recurse -Force -ErrorAction SilentlyContinue
}
