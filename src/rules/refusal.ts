/**
 * Why a command line is not covered by command rules: something in it that is more than simple
 * commands of plain words joined by `&&`, `||`, `;`, `|` and newlines.
 */
export type Refusal =
  /** Nothing to run. */
  | "empty"
  /** Longer than one argument to bash can be. */
  | "too-long"
  /** A control character (CR, NUL, ...) or text that is not well-formed Unicode. */
  | "control-character"
  /** Bash's grammar does not accept it, or it is cut short. */
  | "parse-error"
  | "comment"
  | "here-document"
  | "here-string"
  /** A redirection other than `N>&M`, `N>&-` or `N>/dev/null`-style discards. */
  | "redirection"
  /** `$NAME`, `${...}` or any other `$` outside single quotes. */
  | "expansion"
  | "ansi-c-quoting"
  | "locale-quoting"
  | "command-substitution"
  | "process-substitution"
  | "arithmetic"
  | "brace-expansion"
  | "tilde-expansion"
  | "glob"
  /** `NAME=value` before a command, or an array. */
  | "assignment"
  /** A subshell `( ... )` or a group `{ ...; }`. */
  | "group"
  /** `&` at the end of a command. */
  | "background"
  | "function"
  /** `if`, `while`, `for`, `case`, `[[ ... ]]`, `!` and the like. */
  | "control-flow"
  /** `export`, `declare`, `local`, `readonly`, `typeset`, `unset`. */
  | "declaration"
  /** A reserved word where a command's name goes. */
  | "keyword"
  /** A `\`-newline that joins what bash and the grammar would split differently. */
  | "continuation"
  /** An operator other than `&&`, `||`, `;`, `|` (such as `|&` or `;;`). */
  | "operator"
  /** Text between the parts that bash could read differently from the grammar. */
  | "unreadable";
