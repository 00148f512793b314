/**
 * The model layer's public surface: the streaming client, the model catalog and their types.
 * Everything else in `src/llm` is internal.
 */
export {
  createModelCatalog,
  type ModelCatalog,
  type ModelCatalogOptions,
  UserModelConfig,
} from "./catalog.ts";
export { createModelClient, type ModelClientDeps } from "./client.ts";
export {
  type BilledTokens,
  costOf,
  type ModelPrices,
  type PriceTable,
  type PriceWindow,
  pricesAt,
} from "./prices.ts";
export type { RetryPolicy } from "./retry.ts";
export {
  type ChatMessage,
  type ChatRequest,
  type ChatToolCall,
  type Effort,
  type FinishReason,
  LlmError,
  type LlmErrorCode,
  type LlmEvent,
  type ModelClient,
  type ModelInfo,
  type ToolDefinition,
  type Usage,
} from "./types.ts";
