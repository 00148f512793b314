/** The composition root's own choices, seen from outside. */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compose } from "../../src/app/compose.ts";
import { loadConfig } from "../../src/app/config.ts";
import { createModelCatalog } from "../../src/llm/catalog.ts";
import { silentLogger } from "../../src/log.ts";

const root = mkdtempSync(join(tmpdir(), "dsh-compose-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a composition serves the model catalog it is given rather than building another", async () => {
  const env = {
    HOME: join(root, "user"),
    DSH_HOME: join(root, "home"),
    DSH_CONFIG: join(root, "config.toml"),
  };
  mkdirSync(env.HOME);
  writeFileSync(env.DSH_CONFIG, '[[models]]\nid = "local"\nbase_url = "http://127.0.0.1:9"\n');
  const config = loadConfig(env);
  const catalog = createModelCatalog({ defaultModel: config.model, userModels: config.models });
  await using composition = compose({ config, env, logger: silentLogger, answerers: [], catalog });
  expect(composition.models()).toBe(catalog.models());
});
