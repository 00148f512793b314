/**
 * Runs before every test file: builds `dist/dsh` when it is missing or older than the sources,
 * so the end-to-end test that happens to run first never spends its time limit on the build.
 */
import { afterAll } from "bun:test";
import { ensureBinary } from "./binary.ts";
import { removeGitHome } from "./git-home.ts";

await ensureBinary();
// A preload's hook runs once, after every file of the process.
afterAll(removeGitHome);
