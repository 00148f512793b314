/** Whether a prompt's content can go to the session's model at all, checked before any request. */
import { InvalidInputError } from "../errors.ts";
import type { ModelInfo } from "../llm/types.ts";
import type { UserContent } from "../session/events.ts";

/**
 * Throws InvalidInputError when `content` holds an image and `model` has no vision; the
 * message names the catalog's models that have it, so the user knows what to switch to.
 */
export function checkContentForModel(
  content: readonly UserContent[],
  model: ModelInfo,
  models: readonly ModelInfo[],
): void {
  if (model.vision === true || !content.some((block) => block.type === "image")) return;
  const withVision = models.filter((m) => m.vision === true).map((m) => m.id);
  const hint =
    withVision.length === 0
      ? "no configured model takes images (set vision = true on a [[models]] entry that does)"
      : `switch to a model that does: ${withVision.join(", ")} (/model ${withVision[0]})`;
  throw new InvalidInputError(`model ${model.id} does not take images; ${hint}`, {
    model: model.id,
    vision: withVision,
  });
}
