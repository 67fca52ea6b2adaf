#!/usr/bin/env node
// The skillmod launcher: finds the binary of this platform's package (installed by npm as an
// optional dependency, no postinstall script) and runs it with the same arguments, stdio and exit
// status. SKILLMOD_BINARY names another binary to run instead.
"use strict";

const { spawnSync } = require("child_process");
const path = require("path");

const PACKAGES = {
  "linux-x64-gnu": "@skillmod/linux-x64-gnu",
  "linux-arm64-gnu": "@skillmod/linux-arm64-gnu",
  "linux-x64-musl": "@skillmod/linux-x64-musl",
  "linux-arm64-musl": "@skillmod/linux-arm64-musl",
  "darwin-x64": "@skillmod/darwin-x64",
  "darwin-arm64": "@skillmod/darwin-arm64",
  "win32-x64": "@skillmod/win32-x64-msvc",
};

// glibc or musl: Node reports the glibc version it runs on, and none on musl.
function libc() {
  if (process.platform !== "linux") return "";
  const report = process.report && process.report.getReport ? process.report.getReport() : null;
  const header = report && (typeof report === "string" ? JSON.parse(report) : report).header;
  return header && header.glibcVersionRuntime ? "-gnu" : "-musl";
}

function binary() {
  if (process.env.SKILLMOD_BINARY) return process.env.SKILLMOD_BINARY;
  const key = `${process.platform}-${process.arch}${libc()}`;
  const name = PACKAGES[key];
  const file = process.platform === "win32" ? "skillmod.exe" : "skillmod";
  if (name) {
    try {
      return require.resolve(`${name}/bin/${file}`);
    } catch (_) {
      // Not installed: said below.
    }
  }
  process.stderr.write(
    `error[BINARY_NOT_FOUND]: no skillmod binary for ${key}` +
      (name
        ? `: the optional package ${name} is not installed. Install it (\`npm install ${name}\`, or ` +
          `its tarball), or reinstall skillmod without --omit=optional (a lockfile written on ` +
          `another system can leave it out: delete it and install again)`
        : ": this platform has no prebuilt binary; install with `cargo install skillmod`") +
      ", or set SKILLMOD_BINARY to a skillmod binary.\n"
  );
  process.exit(2);
}

const result = spawnSync(binary(), process.argv.slice(2), { stdio: "inherit" });
if (result.error) {
  const override = process.env.SKILLMOD_BINARY
    ? "; SKILLMOD_BINARY names it: point it at a skillmod binary, or unset it"
    : "; reinstall skillmod";
  process.stderr.write(
    `error[BINARY_NOT_RUNNABLE]: cannot run ${result.error.path || "skillmod"}: ${result.error.message}${override}\n`
  );
  process.exit(2);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status === null ? 2 : result.status);
