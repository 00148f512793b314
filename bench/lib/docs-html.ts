/**
 * A documentation page of about `bytes` bytes, shaped like real ones (an API reference): a head
 * with styles and scripts, a top bar, a navigation sidebar, then sections of headings,
 * paragraphs with links and inline code, highlighted code blocks, parameter tables, lists and
 * collapsible details, and a footer. Deterministic, so every run converts the same page.
 */

const HEAD = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Vec in std::vec - Reference</title>
<link rel="stylesheet" href="/static/rustdoc.css">
<style>${".item-decl{display:block}.sidebar a{color:#333}".repeat(40)}</style>
<script>${"window.searchIndex=window.searchIndex||{};".repeat(60)}</script>
</head><body class="rustdoc struct">
<nav class="sub"><form class="search-form"><input class="search-input" placeholder="Search"></form></nav>
<nav class="sidebar"><h2><a href="../index.html">std</a></h2><ul class="block">${Array.from(
  { length: 120 },
  (_, i) => `<li><a href="#method.m${i}">m${i}</a></li>`,
).join("")}</ul></nav>
<main><section id="main-content" class="content"><h1>Struct <span class="struct">Vec</span></h1>`;

const FOOT = `</section></main><footer><p>© The Reference authors · <a href="/privacy">Privacy</a></p></footer>
<script src="/static/main.js"></script></body></html>`;

/** One method's section; `i` varies the names so the page does not compress to nothing. */
function section(i: number): string {
  return `<section id="method.m${i}" class="method"><h3 class="code-header"><a href="#method.m${i}" class="anchor">§</a>pub fn <a class="fn">m${i}</a>(&amp;mut self, index: usize) -&gt; Option&lt;T&gt;</h3>
<div class="docblock"><p>Removes the element at position <code>index</code> number ${i} and returns it, shifting all
elements after it to the left. See <a href="struct.VecDeque.html#method.remove" title="method std::collections::VecDeque::remove"><code>VecDeque::remove</code></a>
if you need <em>amortised</em> O(1) removal, and <a href="https://example.org/guide/ch${i % 20}.html">chapter ${i % 20}</a> of the guide.</p>
<h4 id="panics-${i}"><a class="doc-anchor" href="#panics-${i}">§</a>Panics</h4>
<p>Panics if <code>index</code> is out of bounds.</p>
<table><thead><tr><th>Argument</th><th>Type</th><th>Meaning</th></tr></thead><tbody>
<tr><td><code>index</code></td><td><code>usize</code></td><td>Where to remove, from 0</td></tr>
<tr><td><code>self</code></td><td><code>&amp;mut Vec&lt;T&gt;</code></td><td>The vector | changed in place</td></tr></tbody></table>
<ul><li>Runs in <strong>O(n)</strong> time</li><li>Keeps the order of the other elements<ul><li>unlike <code>swap_remove</code></li></ul></li></ul>
<div class="example-wrap"><pre class="rust rust-example-rendered"><code><span class="kw">let</span> <span class="kw-2">mut</span> v = <span class="macro">vec!</span>[<span class="number">1</span>, <span class="number">2</span>, <span class="number">${i}</span>];
<span class="macro">assert_eq!</span>(v.m${i}(<span class="number">1</span>), <span class="prelude-val">Some</span>(<span class="number">2</span>));
<span class="macro">assert_eq!</span>(v, [<span class="number">1</span>, <span class="number">${i}</span>]);</code></pre>
<button class="copy-button" title="Copy code">Copy</button></div>
<details class="toggle"><summary>Examples with iterators</summary><p>Combine with <code>iter().position()</code> to find the index first.</p></details>
</div></section>
`;
}

/** The page, at least `bytes` long. */
export function docsPage(bytes: number): string {
  const parts = [HEAD];
  let length = HEAD.length + FOOT.length;
  for (let i = 0; length < bytes; i++) {
    const next = section(i);
    parts.push(next);
    length += next.length;
  }
  parts.push(FOOT);
  return parts.join("");
}
