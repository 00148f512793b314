/**
 * Facts about the project that the release tooling shares: its version and where it lives.
 * The repository URL comes from package.json `repository` and nowhere else; release
 * downloads are that repository's GitHub releases.
 */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/** `https://github.com/OWNER/NAME`, without `.git` or a trailing slash. */
export const REPOSITORY: string = pkg.repository.url.replace(/^git\+/, "").replace(/\.git$/, "");

/** Where the archives of release `version` are downloaded from. */
export function releaseBase(version: string = VERSION): string {
  return `${REPOSITORY}/releases/download/v${version}`;
}
