/**
 * Bash's grammar (tree-sitter-bash, the grammar Codex checks commands with) on the tree-sitter
 * runtime, both WebAssembly files embedded in the executable. Loaded at the first rule check,
 * never at start-up: `shell-command.ts` imports this module with `await import()`.
 */
import bashGrammar from "tree-sitter-bash/tree-sitter-bash.wasm" with { type: "file" };
import { Language, Parser, type Tree } from "web-tree-sitter";
import runtime from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };

/** Parses shell text with bash's grammar; the caller deletes the tree it gets. */
export interface BashParser {
  parse(text: string): Tree;
}

let loading: Promise<BashParser> | undefined;

/** The parser, made once per process; a failed load is tried again at the next call. */
export function loadBashParser(): Promise<BashParser> {
  loading ??= create().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

async function create(): Promise<BashParser> {
  await Parser.init({ wasmBinary: await Bun.file(runtime).bytes() });
  const bash = await Language.load(await Bun.file(bashGrammar).bytes());
  const parser = new Parser();
  parser.setLanguage(bash);
  return {
    parse(text) {
      const tree = parser.parse(text);
      if (tree === null) throw new Error("the bash grammar returned no tree");
      return tree;
    },
  };
}
