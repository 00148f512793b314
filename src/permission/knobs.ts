/** The two per-session permission knobs and the presets that bundle them (see interface.md). */
import * as v from "valibot";

/** What a sandboxed command may touch. `danger-full-access` means no sandbox at all. */
export const SandboxMode = v.picklist(["read-only", "workspace-write", "danger-full-access"]);
export type SandboxMode = v.InferOutput<typeof SandboxMode>;

/** When dsh asks a human before acting. */
export const ApprovalPolicy = v.picklist(["on-request", "never"]);
export type ApprovalPolicy = v.InferOutput<typeof ApprovalPolicy>;

/** The presets of interface.md, in display order. */
export const PresetId = v.picklist(["read-only", "workspace-write", "danger-full-access"]);
export type PresetId = v.InferOutput<typeof PresetId>;

/** A session's two permission knobs; each is changed only by its own session event. */
export interface Knobs {
  readonly sandboxMode: SandboxMode;
  readonly approvalPolicy: ApprovalPolicy;
}

/** Each preset's knobs (interface.md, "Permission presets"). */
export const PRESETS: Readonly<Record<PresetId, Knobs>> = {
  "read-only": { sandboxMode: "read-only", approvalPolicy: "on-request" },
  "workspace-write": { sandboxMode: "workspace-write", approvalPolicy: "on-request" },
  "danger-full-access": { sandboxMode: "danger-full-access", approvalPolicy: "never" },
};

/** The preset whose knobs equal these, or `custom` when none does. */
export function presetOf(knobs: Knobs): PresetId | "custom" {
  const match = PresetId.options.find((id) => {
    const preset = PRESETS[id];
    return (
      preset.sandboxMode === knobs.sandboxMode && preset.approvalPolicy === knobs.approvalPolicy
    );
  });
  return match ?? "custom";
}
