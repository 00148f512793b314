/**
 * Local stand-ins for the servers package managers talk to, each a real `Bun.serve` on a
 * loopback address with a request log: a git smart-HTTP host (`git http-backend` as CGI), an
 * npm registry (one package's packument and tarball) and a Python simple index (one wheel).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PackageServer extends AsyncDisposable {
  /** `host:port`. */
  readonly authority: string;
  readonly url: string;
  /** Request paths in arrival order. */
  readonly log: string[];
}

/** The package every server offers. */
export const PACKAGE = { name: "dsh-test-pkg", version: "1.0.0" };

function serve(
  host: string,
  handle: (request: Request, url: URL) => Promise<Response> | Response,
  cleanup = () => {},
) {
  const log: string[] = [];
  const server = Bun.serve({
    hostname: host,
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      log.push(url.pathname + url.search);
      return handle(request, url);
    },
  });
  const authority = `${host}:${server.port}`;
  return {
    authority,
    url: `http://${authority}`,
    log,
    async [Symbol.asyncDispose]() {
      await server.stop(true);
      cleanup();
    },
  };
}

/** A bare repository `repo.git` with one commit, served over smart HTTP. */
export function startGitServer(host: string): PackageServer & { readonly head: string } {
  const root = mkdtempSync(join(tmpdir(), "dsh-git-http-"));
  const work = join(root, "work");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, GIT_CONFIG_NOSYSTEM: "1" };
  const git = (cwd: string, ...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd, env, stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr}`);
    return result.stdout.toString().trim();
  };
  mkdirSync(work);
  git(work, "init", "-q", "-b", "main");
  writeFileSync(join(work, "README"), "served over smart HTTP\n");
  git(work, "add", "README");
  git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "first");
  git(root, "clone", "-q", "--bare", work, "repo.git");
  const head = git(work, "rev-parse", "HEAD");
  const server = serve(
    host,
    async (request, url) => {
      const body = new Uint8Array(await request.arrayBuffer());
      const cgi = Bun.spawn(["git", "http-backend"], {
        env: {
          ...env,
          GIT_PROJECT_ROOT: root,
          GIT_HTTP_EXPORT_ALL: "1",
          GATEWAY_INTERFACE: "CGI/1.1",
          REQUEST_METHOD: request.method,
          PATH_INFO: url.pathname,
          QUERY_STRING: url.search.slice(1),
          CONTENT_TYPE: request.headers.get("content-type") ?? "",
          CONTENT_LENGTH: String(body.length),
          HTTP_CONTENT_ENCODING: request.headers.get("content-encoding") ?? "",
          HTTP_GIT_PROTOCOL: request.headers.get("git-protocol") ?? "",
          REMOTE_ADDR: "127.0.0.1",
        },
        stdin: new Blob([body]),
        stdout: "pipe",
      });
      const output = Buffer.from(await new Response(cgi.stdout).arrayBuffer());
      await cgi.exited;
      const split = output.indexOf("\r\n\r\n");
      const headerText = output.subarray(0, split).toString();
      const headers = new Headers();
      let status = 200;
      for (const line of headerText.split("\r\n")) {
        const [name = "", ...rest] = line.split(":");
        const value = rest.join(":").trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else if (name !== "") headers.append(name, value);
      }
      return new Response(output.subarray(split + 4), { status, headers });
    },
    () => rmSync(root, { recursive: true, force: true }),
  );
  return { ...server, head };
}

/** An npm registry with one package: its packument at `/NAME` and its tarball. */
export function startNpmRegistry(host: string): PackageServer {
  const root = mkdtempSync(join(tmpdir(), "dsh-npm-"));
  mkdirSync(join(root, "package"));
  writeFileSync(
    join(root, "package", "package.json"),
    JSON.stringify({ name: PACKAGE.name, version: PACKAGE.version, main: "index.js" }),
  );
  writeFileSync(join(root, "package", "index.js"), "module.exports = 'served locally';\n");
  Bun.spawnSync(["tar", "czf", "pkg.tgz", "package"], { cwd: root });
  const tarball = readFileSync(join(root, "pkg.tgz"));
  const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(tarball).digest("base64")}`;
  const shasum = new Bun.CryptoHasher("sha1").update(tarball).digest("hex");
  const tarballPath = `/${PACKAGE.name}/-/${PACKAGE.name}-${PACKAGE.version}.tgz`;
  let base = "";
  const server = serve(
    host,
    (_request, url) => {
      if (url.pathname === tarballPath) return new Response(tarball);
      if (url.pathname !== `/${PACKAGE.name}`) return new Response("{}", { status: 404 });
      return Response.json({
        name: PACKAGE.name,
        "dist-tags": { latest: PACKAGE.version },
        versions: {
          [PACKAGE.version]: {
            name: PACKAGE.name,
            version: PACKAGE.version,
            dist: { tarball: `${base}${tarballPath}`, integrity, shasum },
          },
        },
      });
    },
    () => rmSync(root, { recursive: true, force: true }),
  );
  base = server.url;
  return server;
}

/** A PEP 503 simple index with one wheel of the package, made by `python`. */
export function startPythonIndex(host: string, python: string): PackageServer {
  const root = mkdtempSync(join(tmpdir(), "dsh-pypi-"));
  const wheel = `dsh_test_pkg-1.0-py3-none-any.whl`;
  const make = [
    "import sys, zipfile",
    "z = zipfile.ZipFile(sys.argv[1], 'w')",
    "z.writestr('dsh_test_pkg/__init__.py', '')",
    "z.writestr('dsh_test_pkg-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\\nName: dsh-test-pkg\\nVersion: 1.0\\n')",
    "z.writestr('dsh_test_pkg-1.0.dist-info/WHEEL', 'Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n')",
    "z.writestr('dsh_test_pkg-1.0.dist-info/RECORD', '')",
    "z.close()",
  ].join("\n");
  const made = Bun.spawnSync([python, "-c", make, join(root, wheel)], { stderr: "pipe" });
  if (made.exitCode !== 0) throw new Error(`making the wheel failed: ${made.stderr}`);
  const bytes = readFileSync(join(root, wheel));
  const sha = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
  return serve(
    host,
    (_request, url) => {
      if (url.pathname === `/files/${wheel}`) return new Response(bytes);
      if (url.pathname === "/simple/dsh-test-pkg/") {
        return new Response(
          `<!DOCTYPE html><html><body><a href="/files/${wheel}#sha256=${sha}">${wheel}</a></body></html>`,
          { headers: { "content-type": "text/html" } },
        );
      }
      return new Response("not here", { status: 404 });
    },
    () => rmSync(root, { recursive: true, force: true }),
  );
}

/** The Python interpreter behind `python3` (not a version manager's shim, which needs its own HOME). */
export function realPython(): string | undefined {
  const found = Bun.spawnSync(["python3", "-c", "import sys; print(sys.executable)"], {
    stdout: "pipe",
  });
  return found.exitCode === 0 ? found.stdout.toString().trim() : undefined;
}
