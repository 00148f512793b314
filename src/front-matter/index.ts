/**
 * Markdown files with YAML front matter, found in an ordered list of directories (project
 * before user): what skills, custom commands and custom agents are read with.
 */
export {
  type MarkdownFile,
  type MarkdownLayout,
  type MarkdownPlace,
  type MarkdownScan,
  type MarkdownScanner,
  type MarkdownScannerOptions,
  type SkippedFile,
  createMarkdownScanner,
} from "./discover.ts";
export { type Shadowed, firstOfEachName } from "./overrides.ts";
export { type FrontMatter, parseFrontMatter } from "./parse.ts";
