/**
 * `todo_write`: the model keeps its plan for multi-step work. Each call replaces the whole
 * list; the call presents itself as a plan intent, so surfaces show a plan, not a tool card.
 */
import * as v from "valibot";
import { type PlanIntent, PlanItem } from "../render/intent.ts";
import type { Tool, ToolResult } from "./types.ts";

/** Items one plan may hold; a longer list is a sign of a runaway model, not a plan. */
const MAX_ITEMS = 100;
/** Characters of one item. */
const MAX_ITEM_CHARS = 500;
/** The priority of an item the model gave none. */
const DEFAULT_PRIORITY: PlanItem["priority"] = "medium";

export const TodoWriteInput = v.object({
  todos: v.pipe(
    v.array(
      v.object({
        content: v.pipe(
          v.string(),
          v.minLength(1),
          v.maxLength(MAX_ITEM_CHARS),
          v.description("What the step is, in a few words (imperative: 'Run the tests')."),
        ),
        // The plan's own vocabularies, so what the model may send is what a plan holds.
        status: v.pipe(
          PlanItem.entries.status,
          v.description("Exactly one item is in_progress while you work."),
        ),
        priority: v.optional(
          v.pipe(PlanItem.entries.priority, v.description(`Default ${DEFAULT_PRIORITY}.`)),
        ),
      }),
    ),
    v.maxLength(MAX_ITEMS),
    v.description("The whole plan, in order. It replaces the previous list."),
  ),
});
export type TodoWriteInput = v.InferOutput<typeof TodoWriteInput>;

/** Creates the `todo_write` tool. */
export function createTodoWriteTool(): Tool<typeof TodoWriteInput> {
  return {
    name: "todo_write",
    description:
      "Keep your plan for work of three or more steps: send the whole list each time (it replaces " +
      "the previous one), mark exactly one item in_progress while you work on it, and mark items " +
      "completed as soon as they are done. The user sees the plan as you update it.",
    input: TodoWriteInput,
    async execute(input): Promise<ToolResult> {
      const items = planItems(input);
      const count = (status: PlanItem["status"]) => items.filter((i) => i.status === status).length;
      const running = count("in_progress");
      const summary = `plan updated: ${items.length} items (${count("completed")} completed, ${running} in progress, ${count("pending")} pending)`;
      const hint = running > 1 ? "\nnote: keep exactly one item in_progress" : "";
      return { isError: false, output: `${summary}${hint}` };
    },
    presentCall: (input) => planIntent(input),
    presentResult: (input) => planIntent(input),
  };
}

function planItems(input: TodoWriteInput): PlanItem[] {
  return input.todos.map((todo) => ({
    content: todo.content,
    status: todo.status,
    priority: todo.priority ?? DEFAULT_PRIORITY,
  }));
}

function planIntent(input: TodoWriteInput): PlanIntent {
  return { type: "plan", title: "Plan", entries: planItems(input) };
}
