/**
 * Runs before every test file: builds `dist/dsh` when it is missing or older than the sources,
 * so the end-to-end test that happens to run first never spends its time limit on the build.
 */
import { ensureBinary } from "./binary.ts";

await ensureBinary();
