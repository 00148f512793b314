/**
 * Credential stores under the user's home (sandbox.md §3.2 item 7), relative to it. The one
 * list both the command sandbox (which masks them) and the file tools (which refuse them) use.
 * Best effort: it covers the common stores, not every secret a user may keep.
 */

/** Directories whose whole tree is hidden. */
export const CREDENTIAL_DIRS: readonly string[] = [
  ".ssh",
  ".aws",
  ".config/gcloud",
  ".config/gh",
  ".azure",
  ".kube",
  ".docker",
  ".gnupg",
  ".password-store",
];

/** Single files that are hidden. */
export const CREDENTIAL_FILES: readonly string[] = [
  ".netrc",
  ".npmrc",
  ".pypirc",
  ".git-credentials",
  ".config/hub",
  ".cargo/credentials.toml",
  ".cargo/credentials",
  ".vault-token",
  ".yarnrc.yml",
  ".m2/settings.xml",
  ".terraform.d/credentials.tfrc.json",
  ".pgpass",
];
