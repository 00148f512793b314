/**
 * What a prompt's content means for the session's model: an image sent to a model without
 * vision is accepted (the request carries a note in its place) and the user is told once.
 */
import type { ModelInfo } from "../llm/types.ts";
import type { UserContent } from "../session/events.ts";
import type { Notice } from "./notices.ts";

/**
 * The notice for `content` sent to `model`, or undefined when the model sees what it gets. It
 * names the catalog's models that have vision, so the user knows what to switch to.
 */
export function imageNoticeFor(
  content: readonly UserContent[],
  model: ModelInfo,
  models: readonly ModelInfo[],
): Notice | undefined {
  if (model.vision === true || !content.some((block) => block.type === "image")) return undefined;
  const withVision = models.filter((m) => m.vision === true).map((m) => m.id);
  const hint =
    withVision.length === 0
      ? "no configured model takes images (set vision = true on a [[models]] entry that does)"
      : `switch to a model that does: ${withVision.join(", ")} (/model ${withVision[0]})`;
  return {
    severity: "warning",
    title: `model ${model.id} cannot see images`,
    description: `The image was replaced by a note in the request; ${hint}.`,
  };
}
