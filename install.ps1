# Installs the dsh binary on Windows: downloads the release archive, checks its SHA-256, and
# puts dsh.exe in $env:LOCALAPPDATA\dsh\bin (or $env:DSH_INSTALL_DIR).
#
#   irm https://github.com/dsh-agent/dsh/releases/latest/download/install.ps1 | iex
#
# $env:DSH_VERSION picks a release (default: the latest); $env:DSH_DOWNLOAD_BASE overrides
# where archives come from.
#
# dsh has no sandbox on Windows. Its chat, editor (ACP) and file tools work as elsewhere;
# shell commands run only in Git for Windows' bash, outside any sandbox, each one asked about
# first unless the danger-full-access preset is chosen. For sandboxed commands, install dsh's
# Linux build inside WSL2 instead.
$ErrorActionPreference = "Stop"

$repository = "https://github.com/dsh-agent/dsh" # from package.json "repository"; rewritten at release

if (-not [Environment]::Is64BitOperatingSystem -or $env:PROCESSOR_ARCHITECTURE -eq "ARM64") {
  throw "dsh install: no prebuilt dsh for this CPU; install Bun and run: bunx dsh"
}
$archive = "dsh-windows-x64.zip"
if ($env:DSH_DOWNLOAD_BASE) { $base = $env:DSH_DOWNLOAD_BASE }
elseif ($env:DSH_VERSION) { $base = "$repository/releases/download/v$($env:DSH_VERSION)" }
else { $base = "$repository/releases/latest/download" }
$dir = if ($env:DSH_INSTALL_DIR) { $env:DSH_INSTALL_DIR } else { Join-Path $env:LOCALAPPDATA "dsh\bin" }

$work = Join-Path ([IO.Path]::GetTempPath()) ("dsh-install-" + [Guid]::NewGuid())
New-Item -ItemType Directory -Path $work | Out-Null
try {
  Write-Host "downloading $base/$archive"
  Invoke-WebRequest -Uri "$base/$archive" -OutFile (Join-Path $work $archive) -UseBasicParsing
  Invoke-WebRequest -Uri "$base/$archive.sha256" -OutFile (Join-Path $work "$archive.sha256") -UseBasicParsing
  $expected = ((Get-Content (Join-Path $work "$archive.sha256") -Raw) -split "\s+")[0].ToLower()
  $actual = (Get-FileHash -Algorithm SHA256 (Join-Path $work $archive)).Hash.ToLower()
  if ($expected -ne $actual) { throw "dsh install: checksum mismatch for $archive; nothing was installed" }
  Expand-Archive -Path (Join-Path $work $archive) -DestinationPath $work -Force
  New-Item -ItemType Directory -Path $dir -Force | Out-Null
  Move-Item -Force (Join-Path $work "dsh.exe") (Join-Path $dir "dsh.exe")
  Write-Host "installed dsh to $dir\dsh.exe"
  Write-Host "dsh has no sandbox on Windows: shell commands run only in Git for Windows' bash, unsandboxed, each asked about first (unless you choose danger-full-access). For sandboxed commands, run dsh's Linux build inside WSL2 (install.sh there, and apt install bubblewrap)."
  if (-not ($env:PATH -split ";" | Where-Object { $_ -eq $dir })) {
    Write-Host "add $dir to your PATH: [Environment]::SetEnvironmentVariable('Path', `"$dir;`" + [Environment]::GetEnvironmentVariable('Path', 'User'), 'User')"
  }
} finally {
  Remove-Item -Recurse -Force $work
}
