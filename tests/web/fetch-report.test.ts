/** A fetched page's report: never over 256 KiB whatever max_chars says, and a card that sums it up. */
import { expect, test } from "bun:test";
import { pageReport, presentFetch } from "../../src/tools/web-fetch-report.ts";
import { MAX_RESULT_BYTES } from "../../src/tools/web-fetch.ts";
import { untrusted } from "../../src/web/untrusted.ts";

const page = {
  url: "https://x.test/a",
  finalUrl: "https://x.test/a",
  redirects: 0,
  title: "T",
  status: 200,
  statusText: "OK",
  contentType: "text/plain",
  bytes: 1_800_000,
  cut: false,
  form: "text",
  via: "direct",
} as const;

test("the result stays within 256 KiB, multi-byte text cut on a character, the header saying how much is shown", () => {
  const text = "§é漢".repeat(200_000);
  const report = pageReport(page, text, MAX_RESULT_BYTES, MAX_RESULT_BYTES);
  const output = `${report.header}\n\n${untrusted(page.finalUrl, report.shownText)}`;
  expect(new TextEncoder().encode(output).length).toBeLessThanOrEqual(MAX_RESULT_BYTES);
  expect(text.startsWith(report.shownText)).toBe(true);
  expect(report.header.split("\n").at(-1)).toBe(
    `Shown: the first ${report.shownText.length.toLocaleString("en-US")} of 600,000 characters; ask again with a larger max_chars for more`,
  );
});

test("the card is titled with the URL asked for and summarised by the title, the size and a failing status", () => {
  const report = pageReport(
    { ...page, status: 404, statusText: "Not Found" },
    "gone",
    100,
    MAX_RESULT_BYTES,
  );
  const intent = presentFetch("x.test/a", {
    isError: true,
    output: `${report.header}\n\n${untrusted(page.finalUrl, report.shownText)}`,
    details: report.details,
  });
  expect(intent).toEqual({
    type: "generic",
    kind: "fetch",
    title: "x.test/a",
    text: "URL: https://x.test/a\nTitle: T\nStatus: HTTP 404 Not Found\nContent: text/plain, 1.7 MB, as text\n\ngone",
    summary: '"T" · 1.7 MB · HTTP 404',
  });
});
