import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { EnvConfig, scrubEnv } from "../../src/exec/env.ts";

const planted = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/parent",
  LANG: "en_US.UTF-8",
  LC_ALL: "C",
  XDG_CONFIG_HOME: "/home/u/.config",
  XDG_RUNTIME_DIR: "/run/user/1000",
  OPENAI_API_KEY: "sk-planted-1",
  AWS_SECRET_ACCESS_KEY: "planted-2",
  GITHUB_TOKEN: "planted-3",
  my_db_password: "planted-4",
  DATABASE_URL: "postgres://u:planted-5@h/db",
  SSH_AUTH_SOCK: "/tmp/ssh-planted/agent.1",
  Api_Key: "planted-6",
  DSH_API_KEY: "planted-7",
  DEEPSEEK_API_KEY: "planted-8",
  LD_PRELOAD: "/tmp/planted.so",
  BASH_ENV: "/tmp/planted.sh",
  MY_TOOL_HOME: "/opt/tool",
  NPM_TOKEN: "planted-9",
  JAVA_HOME: "/usr/lib/jvm/default",
  UNSET: undefined,
};

const scrub = (options: Partial<Parameters<typeof scrubEnv>[1]> = {}) =>
  scrubEnv(planted, { backend: "bwrap", home: "/home/u", cwd: "/work/p", ...options });

describe("the environment scrub", () => {
  test("keeps the allowlist and drops every planted credential (cases 19, 20)", () => {
    expect(scrub()).toEqual({
      env: {
        PATH: "/usr/bin:/bin",
        HOME: "/home/u",
        LANG: "en_US.UTF-8",
        LC_ALL: "C",
        XDG_CONFIG_HOME: "/home/u/.config",
        JAVA_HOME: "/usr/lib/jvm/default",
        PWD: "/work/p",
        TMPDIR: "/tmp",
        TERM: "dumb",
        PAGER: "cat",
        GIT_PAGER: "cat",
        DSH_SANDBOX: "bwrap",
      },
      removed: [
        "AWS_SECRET_ACCESS_KEY",
        "Api_Key",
        "BASH_ENV",
        "DATABASE_URL",
        "DEEPSEEK_API_KEY",
        "DSH_API_KEY",
        "GITHUB_TOKEN",
        "LD_PRELOAD",
        "MY_TOOL_HOME",
        "NPM_TOKEN",
        "OPENAI_API_KEY",
        "SSH_AUTH_SOCK",
        "XDG_RUNTIME_DIR",
        "my_db_password",
      ],
    });
  });

  test("an unsandboxed child keeps XDG_RUNTIME_DIR and the parent's TMPDIR", () => {
    const { env } = scrubEnv(
      { ...planted, TMPDIR: "/var/tmp/u" },
      { backend: "none", home: "/h", cwd: "/c" },
    );
    expect([env.XDG_RUNTIME_DIR, env.TMPDIR, env.DSH_SANDBOX]).toEqual([
      "/run/user/1000",
      "/var/tmp/u",
      "none",
    ]);
  });

  test("include passes names and globs through, but never a credential-shaped one", () => {
    const { env } = scrub({ include: ["MY_*", "NPM_TOKEN", "GITHUB_TOKEN"] });
    expect([env.MY_TOOL_HOME, env.NPM_TOKEN, env.GITHUB_TOKEN]).toEqual([
      "/opt/tool",
      undefined,
      undefined,
    ]);
  });

  test("allowSecret passes exactly the names listed, URL userinfo included", () => {
    const { env } = scrub({ allowSecret: ["NPM_TOKEN", "DATABASE_URL", "api_key"] });
    expect([env.NPM_TOKEN, env.DATABASE_URL, env.Api_Key]).toEqual([
      "planted-9",
      "postgres://u:planted-5@h/db",
      undefined,
    ]);
  });

  test("dsh's own API keys never pass, whatever the configuration says", () => {
    const { env } = scrub({ include: ["*"], allowSecret: ["DSH_API_KEY", "DEEPSEEK_API_KEY"] });
    expect([env.DSH_API_KEY, env.DEEPSEEK_API_KEY]).toEqual([undefined, undefined]);
  });

  test("a value with URL userinfo is dropped whatever its name", () => {
    const parent = {
      HTTPS_PROXY: "http://user:pw@proxy:3128",
      NO_PROXY: "localhost",
      GIT_URL: "https://tok@host/r",
    };
    const { env } = scrubEnv(parent, { backend: "none", home: "/h", cwd: "/c", include: ["*"] });
    expect([env.HTTPS_PROXY, env.NO_PROXY, env.GIT_URL]).toEqual([
      undefined,
      "localhost",
      undefined,
    ]);
  });

  test("a proxy with credentials but no scheme is dropped; look-alikes without a password pass", () => {
    const parent = {
      https_proxy: "user:secret@proxy:3128",
      ALL_PROXY: "me:p@ss@proxy.corp:8080",
      GIT_REMOTE: "git@github.com:org/repo.git",
      MAIL: "someone@example.com",
      MANPATH: "/usr/share/man:/opt/man@2",
    };
    const { env } = scrubEnv(parent, { backend: "none", home: "/h", cwd: "/c", include: ["*"] });
    expect([env.https_proxy, env.ALL_PROXY, env.GIT_REMOTE, env.MAIL, env.MANPATH]).toEqual([
      undefined,
      undefined,
      "git@github.com:org/repo.git",
      "someone@example.com",
      "/usr/share/man:/opt/man@2",
    ]);
  });

  test("trust stores and proxies pass without configuration; a proxy with credentials does not", () => {
    const parent = {
      SSL_CERT_FILE: "/etc/ssl/corp.pem",
      NODE_EXTRA_CA_CERTS: "/etc/ssl/corp.pem",
      https_proxy: "http://proxy:3128",
      HTTP_PROXY: "http://me:secret@proxy:3128",
    };
    const { env } = scrubEnv(parent, { backend: "none", home: "/h", cwd: "/c" });
    expect([env.SSL_CERT_FILE, env.NODE_EXTRA_CA_CERTS, env.https_proxy, env.HTTP_PROXY]).toEqual([
      "/etc/ssl/corp.pem",
      "/etc/ssl/corp.pem",
      "http://proxy:3128",
      undefined,
    ]);
  });

  test("EnvConfig reads the [env] table with defaults", () => {
    expect(v.parse(EnvConfig, {})).toEqual({ include: [], allow_secret: [] });
    expect(v.safeParse(EnvConfig, { include: "PATH" }).success).toBe(false);
  });
});
